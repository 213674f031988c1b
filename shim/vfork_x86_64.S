/* Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
 *
 * vfork cannot be wrapped in C: the child runs on the wrapper's stack frame and returns through it, and the
 * parent would then return through a frame the child clobbered. This trampoline calls the parent-side hook
 * first (stack balanced again afterwards), then tail-jumps to the real vfork, which returns straight to our
 * caller in both processes. */
#if defined(__x86_64__)
	.text
	.globl	vfork
	.type	vfork, @function
vfork:
	.cfi_startproc
	subq	$8, %rsp              /* realign to 16 bytes for the call */
	.cfi_adjust_cfa_offset 8
	call	numabind_before_vfork
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	jmp	*numabind_real_vfork(%rip)
	.cfi_endproc
	.size	vfork, .-vfork
#endif
	.section .note.GNU-stack,"",@progbits
