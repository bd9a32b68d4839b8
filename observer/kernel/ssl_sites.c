// SPDX-License-Identifier: MIT
/* Where in a libssl the TLS uprobes go: at instructions the kernel emulates (ssl_sites.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "kernel/ssl_sites.h"

bool obs_x86_emulated(const uint8_t *c, size_t len)
{
	if (len < 1)
		return false;
	if (c[0] >= 0x50 && c[0] <= 0x57) /* push %rax..%rdi */
		return true;
	if (len >= 2 && c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57) /* push %r8..%r15 */
		return true;
	/* call and jmp to a fixed address, nop */
	return c[0] == 0xe8 || c[0] == 0xe9 || c[0] == 0xeb || c[0] == 0x90;
}

size_t obs_x86_entry_skip(const uint8_t *c, size_t len)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};

	return len >= 8 && !memcmp(c, endbr64, sizeof(endbr64)) ? sizeof(endbr64) : 0;
}

/* The target of a call rel32 at code[i], its byte 0xe8 at address va + i. */
static uint64_t call_target(const uint8_t *code, size_t i, uint64_t va)
{
	int32_t rel;

	memcpy(&rel, code + i + 1, sizeof(rel)); /* little-endian: x86-64 only */
	return va + i + 5 + (int64_t)rel;
}

uint64_t obs_x86_common_call(const uint8_t *a, size_t alen, uint64_t va, const uint8_t *b,
			     size_t blen, uint64_t vb)
{
	size_t i, k;
	uint64_t t;

	alen = alen < OBS_SSL_SCAN ? alen : OBS_SSL_SCAN;
	blen = blen < OBS_SSL_SCAN ? blen : OBS_SSL_SCAN;
	for (i = 0; i + 5 <= alen; i++) {
		if (a[i] != 0xe8)
			continue;
		t = call_target(a, i, va);
		for (k = 0; k + 5 <= blen; k++)
			if (b[k] == 0xe8 && call_target(b, k, vb) == t)
				return t;
	}
	return 0;
}

void obs_ssl_pair_plan(struct obs_ssl_site *a, struct obs_ssl_site *b, const uint8_t *acode,
		       const uint8_t *bcode, const uint8_t *inner, size_t inner_len)
{
	size_t s;

	a->inner = b->skip = false;
	if (inner) {
		s = obs_x86_entry_skip(inner, inner_len);
		if (obs_x86_emulated(inner + s, inner_len - s)) {
			a->inner = true;
			a->emulated = true;
			b->skip = true;
			b->emulated = false;
			return;
		}
	}
	s = obs_x86_entry_skip(acode, OBS_SSL_SCAN);
	a->emulated = obs_x86_emulated(acode + s, OBS_SSL_SCAN - s);
	s = obs_x86_entry_skip(bcode, OBS_SSL_SCAN);
	b->emulated = obs_x86_emulated(bcode + s, OBS_SSL_SCAN - s);
}

void obs_ssl_sites_text(size_t emulated, size_t stepped, size_t inner, char *buf, size_t len)
{
	snprintf(buf, len, "%zu probe%s at instructions the kernel emulates%s; %zu stepped out of "
		 "line: a second trap a call", emulated, emulated == 1 ? "" : "s",
		 inner == 2 ? ", SSL_read/_ex and SSL_write/_ex at their inner functions"
		 : inner ? ", a wrapper pair at its inner function" : "", stepped);
}

#if defined(__x86_64__)
/* The library's executable sections, to turn an address into bytes and a file offset. */
struct text {
	Elf *elf;
	int fd;
};

/* n bytes at address va into buf (zeros past the section's end); its file offset in *off. */
static int text_read(const struct text *t, uint64_t va, uint8_t *buf, size_t n, uint64_t *off)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t have;

	memset(buf, 0, n);
	while ((scn = elf_nextscn(t->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || va < sh.sh_addr || va >= sh.sh_addr + sh.sh_size)
			continue;
		*off = va - sh.sh_addr + sh.sh_offset;
		have = sh.sh_addr + sh.sh_size - va;
		if (have > n)
			have = n;
		return pread(t->fd, buf, have, (off_t)*off) == (ssize_t)have ? 0 : -EIO;
	}
	return -ENOENT;
}

/* The address of each function (0: not defined here). */
static void text_syms(const struct text *t, uint64_t va[OBS_SSL_FNS])
{
	static const char *const names[OBS_SSL_FNS] = {"SSL_read", "SSL_read_ex", "SSL_write",
						       "SSL_write_ex", "SSL_do_handshake"};
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym sym;
	const char *name;
	size_t i, k, n;

	memset(va, 0, sizeof(uint64_t) * OBS_SSL_FNS);
	while ((scn = elf_nextscn(t->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; d && i < n; i++) {
			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(t->elf, sh.sh_link, sym.st_name);
			for (k = 0; name && k < OBS_SSL_FNS; k++)
				if (!strcmp(name, names[k]))
					va[k] = sym.st_value;
		}
	}
}

/* A wrapper pair (a, a + 1): the inner function both call, or each at its entry. */
static void pair_find(const struct text *t, const uint64_t *va, struct obs_ssl_site *site,
		      bool entries)
{
	uint8_t ac[OBS_SSL_SCAN], bc[OBS_SSL_SCAN], in[16];
	uint64_t aoff, boff, ioff = 0, inner = 0;
	bool have_inner = false;

	if (!va[0] || !va[1] || text_read(t, va[0], ac, sizeof(ac), &aoff) ||
	    text_read(t, va[1], bc, sizeof(bc), &boff))
		return; /* by name: attaching says what is missing */
	inner = entries ? 0 : obs_x86_common_call(ac, sizeof(ac), va[0], bc, sizeof(bc), va[1]);
	if (inner && !text_read(t, inner, in, sizeof(in), &ioff))
		have_inner = true;
	obs_ssl_pair_plan(&site[0], &site[1], ac, bc, have_inner ? in : NULL, sizeof(in));
	if (site[0].inner) {
		site[0].offset = ioff + obs_x86_entry_skip(in, sizeof(in));
		return;
	}
	site[0].offset = aoff + obs_x86_entry_skip(ac, sizeof(ac));
	site[1].offset = boff + obs_x86_entry_skip(bc, sizeof(bc));
}

int obs_ssl_sites_find(const char *path, bool entries, struct obs_ssl_sites *sites)
{
	struct obs_ssl_site *hs = &sites->fn[OBS_SSL_HANDSHAKE];
	uint64_t va[OBS_SSL_FNS], off;
	struct text t = {NULL, -1};
	uint8_t code[16];
	size_t i, s;

	memset(sites, 0, sizeof(*sites));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	t.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t.fd < 0)
		return -errno;
	t.elf = elf_begin(t.fd, ELF_C_READ, NULL);
	if (!t.elf || elf_kind(t.elf) != ELF_K_ELF) {
		if (t.elf)
			elf_end(t.elf);
		close(t.fd);
		return -ENOEXEC;
	}
	text_syms(&t, va);
	pair_find(&t, &va[OBS_SSL_READ], &sites->fn[OBS_SSL_READ], entries);
	pair_find(&t, &va[OBS_SSL_WRITE], &sites->fn[OBS_SSL_WRITE], entries);
	if (va[OBS_SSL_HANDSHAKE] && !text_read(&t, va[OBS_SSL_HANDSHAKE], code, sizeof(code), &off)) {
		s = obs_x86_entry_skip(code, sizeof(code));
		hs->offset = off + s;
		hs->emulated = obs_x86_emulated(code + s, sizeof(code) - s);
	}
	elf_end(t.elf);
	close(t.fd);
	for (i = 0; i < OBS_SSL_FNS; i++) {
		if (sites->fn[i].skip || !sites->fn[i].offset)
			continue;
		if (sites->fn[i].emulated)
			sites->emulated++;
		else
			sites->stepped++;
	}
	return 0;
}
#else
int obs_ssl_sites_find(const char *path, bool entries, struct obs_ssl_sites *sites)
{
	(void)path, (void)entries;
	memset(sites, 0, sizeof(*sites));
	return 0;
}
#endif
