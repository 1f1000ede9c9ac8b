#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Print the kernel release the guests run: the one Debian's installed
# linux-headers-amd64 package points at (e.g. 6.1.0-56-amd64).
dpkg-query -W -f='${Depends}\n' linux-headers-amd64 2>/dev/null |
	sed -n 's/^.*linux-headers-\([0-9][^ ,]*-amd64\).*$/\1/p'
