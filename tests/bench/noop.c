/* SPDX-License-Identifier: MIT */
/*
 * noop.c: a dynamically linked program that does nothing. make bench's
 * section 2b runs it as what one more exec costs: the floor under the
 * start-up that `pfshim run`, a process of its own, adds to its command.
 */
int main(void)
{
	return 0;
}
