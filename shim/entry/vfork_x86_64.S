/* Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
 *
 * vfork cannot be wrapped in C: the child runs on the wrapper's stack frame and returns through it, and the
 * parent would then return through a frame the child clobbered. This trampoline calls the parent-side hook
 * first, which keeps the caller's return address in a thread-local slot (the child overwrites the stack
 * slot that held it), then calls the real vfork (glibc's and musl's keep their own return address in a
 * register across the system call, so both processes come back here), then numabind_after_vfork, which
 * in the parent unmaps what the child's exec wrapper mapped, and returns the caller's address to jump to.
 * Works around no hook running in the parent after vfork returns: a vfork child's mapping outlives its
 * exec. No shadow stack (CET): this object carries no property note, so the loader leaves it off. */
#if defined(__x86_64__)
	.text
	.globl	vfork
	.type	vfork, @function
vfork:
	.cfi_startproc
	movq	(%rsp), %rdi          /* the caller's return address, for numabind_before_vfork to keep */
	subq	$8, %rsp              /* realign to 16 bytes for the call */
	.cfi_adjust_cfa_offset 8
	call	numabind_before_vfork
	addq	$16, %rsp             /* drops the return address too: the child will overwrite its slot */
	.cfi_adjust_cfa_offset -16
	.cfi_undefined rip            /* in a thread-local slot until numabind_after_vfork returns it */
	call	*numabind_real_vfork(%rip)
	pushq	%rax                  /* the pid: 0 in the child, -1 (errno set) on failure */
	.cfi_adjust_cfa_offset 8
	subq	$8, %rsp              /* realign to 16 bytes for the call */
	.cfi_adjust_cfa_offset 8
	movl	%eax, %edi
	call	numabind_after_vfork
	movq	%rax, %rcx
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rax
	.cfi_adjust_cfa_offset -8
	jmp	*%rcx
	.cfi_endproc
	.size	vfork, .-vfork
#endif
	.section .note.GNU-stack,"",@progbits
