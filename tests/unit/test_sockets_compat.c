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
#include <stdlib.h>
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

/* both objects, opened once from their ELF images for every test: state is the pair */
static int open_both(void **state)
{
	static struct bpf_object *o[2];

	o[0] = open_elf(main_bytes, "sockets_bpf");
	o[1] = open_elf(compat_bytes, "sockets_bpf");
	*state = o;
	return 0;
}

static int close_both(void **state)
{
	struct bpf_object **o = *state;

	bpf_object__close(o[0]);
	bpf_object__close(o[1]);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* text's lines (each ending in a newline), sorted in place */
static char *sort_lines(char *text)
{
	char *copy = strdup(text), **line, *l, *out = text;
	size_t n = 1, i;

	assert_non_null(copy);
	for (l = copy; *l; l++)
		n += *l == '\n';
	line = calloc(n, sizeof(*line));
	assert_non_null(line);
	for (n = 0, l = strtok(copy, "\n"); l; l = strtok(NULL, "\n"))
		line[n++] = l;
	qsort(line, n, sizeof(*line), cmp_str);
	for (i = 0; i < n; i++)
		out += sprintf(out, "%s\n", line[i]);
	free(line);
	free(copy);
	return text;
}

/* What the skeleton finds by name in obj, a line each, sorted: every map (its type, key and value
 * size, entries) and every program (its section). */
static char *by_name(struct bpf_object *obj)
{
	struct bpf_program *p;
	struct bpf_map *m;
	struct ll_text t;
	FILE *f = ll_text_open(&t);

	bpf_object__for_each_map(m, obj)
		fprintf(f, "map %s: type %d, key %u, value %u, %u entries\n", bpf_map__name(m),
			(int)bpf_map__type(m), bpf_map__key_size(m), bpf_map__value_size(m),
			bpf_map__max_entries(m));
	bpf_object__for_each_program(p, obj)
		fprintf(f, "program %s: section %s\n", bpf_program__name(p),
			bpf_program__section_name(p));
	return sort_lines(ll_text_close(&t));
}

/* The same maps and programs in both, alike, and none more in the compat object. */
static void test_same_maps_and_programs(void **state)
{
	struct bpf_object **o = *state;
	char *a = by_name(o[0]), *b = by_name(o[1]);

	assert_string_equal(b, a);
	free(a);
	free(b);
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
	struct bpf_object **o = *state;

	same_datasec(bpf_object__btf(o[0]), bpf_object__btf(o[1]), ".rodata");
	same_datasec(bpf_object__btf(o[0]), bpf_object__btf(o[1]), ".bss");
}

LL_TEST_MAIN_GROUP(open_both, close_both, test_same_maps_and_programs, test_same_variables)
