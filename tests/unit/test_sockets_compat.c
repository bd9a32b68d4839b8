// SPDX-License-Identifier: MIT
/*
 * The compat programs (sockets_compat.bpf.o, for kernels before 5.12) are opened through the
 * skeleton of sockets.bpf.o (observer/kernel/sockets.c, skel_open): the skeleton finds maps and
 * programs by name and reads and writes the variables at the main object's offsets. So both
 * objects must have the same maps (type, key, value, size), the same programs (section), and
 * every global variable of .rodata and .bss (the skeleton's members) at the same offset with the
 * same size. No root, no
 * kernel: both ELF images are opened with libbpf and compared.
 */
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "ll_test.h"
#include "loadlens/reqtime.h" /* types of the skeletons' bss */
#include "sockets.skel.h"
#include "sockets_compat.skel.h"

static struct bpf_object *open_elf(const void *(*bytes)(size_t *), const char *name)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .object_name = name);
	struct bpf_object *obj;
	const void *data;
	size_t len;

	data = bytes(&len);
	obj = bpf_object__open_mem(data, len, &o);
	assert_non_null(obj);
	return obj;
}

static const void *main_bytes(size_t *sz)
{
	return sockets_bpf__elf_bytes(sz);
}

static const void *compat_bytes(size_t *sz)
{
	return sockets_compat_bpf__elf_bytes(sz);
}

/* the two objects, opened from their ELF images */
static void open_both(struct bpf_object **a, struct bpf_object **b)
{
	*a = open_elf(main_bytes, "sockets_bpf");
	*b = open_elf(compat_bytes, "sockets_bpf");
}

static void test_same_maps(void **state)
{
	struct bpf_object *a, *b;
	struct bpf_map *m, *n;
	size_t count = 0;

	(void)state;
	open_both(&a, &b);
	bpf_object__for_each_map(m, a) {
		n = bpf_object__find_map_by_name(b, bpf_map__name(m));
		assert_non_null(n);
		assert_int_equal(bpf_map__type(m), bpf_map__type(n));
		assert_int_equal(bpf_map__key_size(m), bpf_map__key_size(n));
		assert_int_equal(bpf_map__value_size(m), bpf_map__value_size(n));
		assert_int_equal(bpf_map__max_entries(m), bpf_map__max_entries(n));
		count++;
	}
	bpf_object__for_each_map(n, b)
		count--; /* and none more in the compat object */
	assert_int_equal(count, 0);
	bpf_object__close(a);
	bpf_object__close(b);
}

static void test_same_programs(void **state)
{
	struct bpf_object *a, *b;
	struct bpf_program *p, *q;
	size_t count = 0;

	(void)state;
	open_both(&a, &b);
	bpf_object__for_each_program(p, a) {
		q = bpf_object__find_program_by_name(b, bpf_program__name(p));
		assert_non_null(q);
		assert_string_equal(bpf_program__section_name(p), bpf_program__section_name(q));
		count++;
	}
	bpf_object__for_each_program(q, b)
		count--;
	assert_int_equal(count, 0);
	bpf_object__close(a);
	bpf_object__close(b);
}

/* the variable named name in datasec sec of btf, or NULL */
static const struct btf_var_secinfo *var_of(const struct btf *btf, const struct btf_type *sec,
					    const char *name)
{
	const struct btf_var_secinfo *v = btf_var_secinfos(sec);
	int k;

	for (k = 0; k < btf_vlen(sec); k++)
		if (!strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, v[k].type)->name_off),
			    name))
			return &v[k];
	return NULL;
}

/* every global variable of section sec (the skeleton's members; static ones are the programs'
 * own, found by their relocations): in both, at the same offset with the same size */
static void same_datasec(const struct btf *x, const struct btf *y, const char *sec)
{
	int i = btf__find_by_name_kind(x, sec, BTF_KIND_DATASEC),
	    j = btf__find_by_name_kind(y, sec, BTF_KIND_DATASEC);
	const struct btf_var_secinfo *u, *v;
	const struct btf_type *s, *t, *var;
	const char *name;
	int k, globals = 0;

	assert_true((i > 0) == (j > 0));
	if (i <= 0)
		return;
	s = btf__type_by_id(x, i);
	t = btf__type_by_id(y, j);
	u = btf_var_secinfos(s);
	for (k = 0; k < btf_vlen(s); k++) {
		var = btf__type_by_id(x, u[k].type);
		if (btf_var(var)->linkage == BTF_VAR_STATIC)
			continue;
		name = btf__name_by_offset(x, var->name_off);
		v = var_of(y, t, name);
		if (!v)
			fail_msg("%s: %s is not in the compat object", sec, name);
		if (u[k].offset != v->offset || u[k].size != v->size)
			fail_msg("%s: %s at %u (%u bytes), in the compat object at %u (%u bytes)", sec,
				 name, u[k].offset, u[k].size, v->offset, v->size);
		globals++;
	}
	assert_true(globals > 0);
}

static void test_same_variables(void **state)
{
	struct bpf_object *a, *b;

	(void)state;
	open_both(&a, &b);
	same_datasec(bpf_object__btf(a), bpf_object__btf(b), ".rodata");
	same_datasec(bpf_object__btf(a), bpf_object__btf(b), ".bss");
	bpf_object__close(a);
	bpf_object__close(b);
}

LL_TEST_MAIN(test_same_maps, test_same_programs, test_same_variables)
