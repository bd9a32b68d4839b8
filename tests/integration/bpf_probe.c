// SPDX-License-Identifier: MIT
/*
 * Precondition probe for integration tests: can this process load a trivial BPF program?
 * Exit 0 if yes; otherwise print why and exit 77 (the tests' "skipped" code).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

int main(void)
{
	/* r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "ll_probe", "GPL", insns, 2, NULL);
	if (fd < 0) {
		printf("SKIP: cannot load a trivial BPF tracepoint program: %s\n",
		       strerror(errno));
		return 77;
	}
	close(fd);
	return 0;
}
