#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Extract the ELF kernel (vmlinux) from a bzImage, for a PVH boot.

    scripts/extract-vmlinux.py BZIMAGE OUT

QEMU boots an ELF kernel that carries a PVH entry point (the Xen ELF note
XEN_ELFNOTE_PHYS32_ENTRY, CONFIG_PVH) straight at that entry: the guest
skips the bzImage's decompressor, which under TCG spends several seconds
of every boot unpacking Debian's xz-compressed kernel
(Documentation/vgemini.rst, "The guest image").  Writes OUT only if the payload is an ELF kernel with that note;
exits 1 otherwise (the caller then boots the bzImage).
"""
import lzma
import struct
import sys
import zlib

XEN_ELFNOTE_PHYS32_ENTRY = 18
ELF_MAGIC = b"\x7fELF"


def payloads(data):
    """Each ELF image found by decompressing from a known magic."""
    for magic in (b"\xfd7zXZ\x00", b"\x1f\x8b\x08"):
        at = data.find(magic)
        while at >= 0:
            try:
                if magic[0] == 0xfd:
                    out = lzma.LZMADecompressor().decompress(data[at:])
                else:
                    out = zlib.decompressobj(16 + zlib.MAX_WBITS) \
                        .decompress(data[at:])
            except (lzma.LZMAError, zlib.error):
                out = b""
            if out[:4] == ELF_MAGIC:
                yield out
            at = data.find(magic, at + 1)


def has_pvh_entry(elf):
    """Whether a 64-bit little-endian ELF has the PVH entry note."""
    if elf[4] != 2 or elf[5] != 1:
        return False
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", elf, phoff + i * phentsize)
        if p_type != 4:		# PT_NOTE
            continue
        off, end = p_offset, p_offset + p_filesz
        while off + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", elf, off)
            name = elf[off + 12:off + 12 + namesz].rstrip(b"\0")
            if name == b"Xen" and ntype == XEN_ELFNOTE_PHYS32_ENTRY:
                return True
            off += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: extract-vmlinux.py BZIMAGE OUT")
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    for elf in payloads(data):
        if has_pvh_entry(elf):
            with open(sys.argv[2], "wb") as f:
                f.write(elf)
            return 0
        print(f"{sys.argv[1]}: the kernel has no PVH entry (CONFIG_PVH)",
              file=sys.stderr)
        return 1
    print(f"{sys.argv[1]}: no xz or gzip ELF payload found", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
