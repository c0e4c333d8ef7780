/* SPDX-License-Identifier: MIT */
/*
 * touch_pages N: fault in exactly N fresh anonymous pages, one write each
 * (pages.h), and nothing else.
 */
#include <stdlib.h>

#include "pages.h"

int main(int argc, char **argv)
{
	pages_touch(argc > 1 ? atol(argv[1]) : 0);
	return 0;
}
