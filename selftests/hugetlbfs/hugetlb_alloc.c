// SPDX-License-Identifier: GPL-2.0-only
/*
 * hugetlb_alloc: a program linked with Debian's libhugetlbfs, as MSGQ
 * users and runtimes ported to a Cray allocate huge pages: the default
 * huge page size, a huge page from get_huge_pages() written and read
 * back, and that it is one (its mapping's KernelPageSize in
 * /proc/self/smaps).  Built on the host
 * (scripts/tests/host-programs.py), run in the guests.
 *
 * Prints "hugetlb_alloc: ok" and exits 0, or says what failed.
 */
#include <stddef.h>		/* before hugetlbfs.h, which needs size_t */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hugetlbfs.h>

/* The kernel page size, in kB, of the mapping that holds @p; 0 if none */
static long page_kb(const void *p)
{
	uintptr_t a = (uintptr_t)p, lo, hi;
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "r");
	long kb = 0;
	int in = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		/* a mapping's first line; its fields start with a name */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = a >= lo && a < hi;
		else if (in && sscanf(line, "KernelPageSize: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return in ? kb : 0;
}

int main(void)
{
	long size = gethugepagesize();
	unsigned char *p;
	long i;

	if (size != 2l << 20) {
		printf("hugetlb_alloc: default huge page size %ld, not 2 MiB\n",
		       size);
		return 1;
	}
	p = get_huge_pages(size, GHP_DEFAULT);
	if (!p) {
		printf("hugetlb_alloc: get_huge_pages(2 MiB) failed\n");
		return 1;
	}
	for (i = 0; i < size; i += 4096)
		p[i] = (unsigned char)(i >> 12);
	for (i = 0; i < size; i += 4096)
		if (p[i] != (unsigned char)(i >> 12)) {
			printf("hugetlb_alloc: byte %ld read back wrong\n", i);
			return 1;
		}
	if (page_kb(p) != size >> 10) {
		printf("hugetlb_alloc: %p is in pages of %ld kB, not %ld\n",
		       (void *)p, page_kb(p), size >> 10);
		return 1;
	}
	free_huge_pages(p);
	printf("hugetlb_alloc: ok\n");
	return 0;
}
