/* SPDX-License-Identifier: MIT */
/* Intrusive doubly linked lists (a struct's own prev and next pointers): the one unlink. */
#ifndef LOADLENS_DLIST_H
#define LOADLENS_DLIST_H

/* node out of the list whose first element is *head, through its fields named prev and next;
 * node's own pointers are left as they were. */
#define LL_DLIST_UNLINK(head, node, prev, next)                                                 \
	do {                                                                                    \
		if ((node)->prev)                                                               \
			(node)->prev->next = (node)->next;                                      \
		else                                                                            \
			*(head) = (node)->next;                                                 \
		if ((node)->next)                                                               \
			(node)->next->prev = (node)->prev;                                      \
	} while (0)

/* The same for a list that also keeps its last element in *tail. */
#define LL_DLIST_UNLINK_TAIL(head, tail, node, prev, next)                                      \
	do {                                                                                    \
		if (!(node)->next)                                                              \
			*(tail) = (node)->prev;                                                 \
		LL_DLIST_UNLINK(head, node, prev, next);                                        \
	} while (0)

#endif /* LOADLENS_DLIST_H */
