#include "textflag.h"

// func kernelAVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int, rows int)
//
// C[0:rows][0:16] += A[0:rows][0:k] · B, B a packed panel (k rows of 16),
// rows from 1 to 6. Twelve accumulators hold a 6×16 block; per step of
// k, two loads of B and six broadcasts of A feed twelve FMAs. Rows past
// rows read the last row of A again (no copy, no out-of-bounds read) and
// are not stored.
TEXT ·kernelAVX2(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	MOVQ b+24(FP), DI
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R9
	MOVQ rows+48(FP), BX
	SHLQ $2, R8
	SHLQ $2, R9

	// Row pointers R10..R14 for rows 1..5, each clamped to row rows-1.
	MOVQ SI, R10
	MOVQ SI, R11
	MOVQ SI, R12
	MOVQ SI, R13
	MOVQ SI, R14
	CMPQ BX, $2
	JLT  rowsdone
	ADDQ R8, R10
	MOVQ R10, R11
	MOVQ R10, R12
	MOVQ R10, R13
	MOVQ R10, R14
	CMPQ BX, $3
	JLT  rowsdone
	ADDQ R8, R11
	MOVQ R11, R12
	MOVQ R11, R13
	MOVQ R11, R14
	CMPQ BX, $4
	JLT  rowsdone
	ADDQ R8, R12
	MOVQ R12, R13
	MOVQ R12, R14
	CMPQ BX, $5
	JLT  rowsdone
	ADDQ R8, R13
	MOVQ R13, R14
	CMPQ BX, $6
	JLT  rowsdone
	ADDQ R8, R14

rowsdone:
	XORQ   AX, AX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ  CX, CX
	JEQ    store

loop:
	VMOVUPS      (DI), Y12
	VMOVUPS      32(DI), Y13
	VBROADCASTSS (SI)(AX*1), Y14
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VBROADCASTSS (R10)(AX*1), Y15
	VFMADD231PS  Y12, Y15, Y2
	VFMADD231PS  Y13, Y15, Y3
	VBROADCASTSS (R11)(AX*1), Y14
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VBROADCASTSS (R12)(AX*1), Y15
	VFMADD231PS  Y12, Y15, Y6
	VFMADD231PS  Y13, Y15, Y7
	VBROADCASTSS (R13)(AX*1), Y14
	VFMADD231PS  Y12, Y14, Y8
	VFMADD231PS  Y13, Y14, Y9
	VBROADCASTSS (R14)(AX*1), Y15
	VFMADD231PS  Y12, Y15, Y10
	VFMADD231PS  Y13, Y15, Y11
	ADDQ         $4, AX
	ADDQ         $64, DI
	DECQ         CX
	JNE          loop

store:
	VADDPS  (DX), Y0, Y0
	VMOVUPS Y0, (DX)
	VADDPS  32(DX), Y1, Y1
	VMOVUPS Y1, 32(DX)
	CMPQ    BX, $2
	JLT     done
	ADDQ    R9, DX
	VADDPS  (DX), Y2, Y2
	VMOVUPS Y2, (DX)
	VADDPS  32(DX), Y3, Y3
	VMOVUPS Y3, 32(DX)
	CMPQ    BX, $3
	JLT     done
	ADDQ    R9, DX
	VADDPS  (DX), Y4, Y4
	VMOVUPS Y4, (DX)
	VADDPS  32(DX), Y5, Y5
	VMOVUPS Y5, 32(DX)
	CMPQ    BX, $4
	JLT     done
	ADDQ    R9, DX
	VADDPS  (DX), Y6, Y6
	VMOVUPS Y6, (DX)
	VADDPS  32(DX), Y7, Y7
	VMOVUPS Y7, 32(DX)
	CMPQ    BX, $5
	JLT     done
	ADDQ    R9, DX
	VADDPS  (DX), Y8, Y8
	VMOVUPS Y8, (DX)
	VADDPS  32(DX), Y9, Y9
	VMOVUPS Y9, 32(DX)
	CMPQ    BX, $6
	JLT     done
	ADDQ    R9, DX
	VADDPS  (DX), Y10, Y10
	VMOVUPS Y10, (DX)
	VADDPS  32(DX), Y11, Y11
	VMOVUPS Y11, 32(DX)

done:
	VZEROUPPER
	RET

// func kernelAVX512(k int, a *float32, lda int, b *float32, c *float32, ldc int, rows int)
//
// kernelAVX2 with 512-bit registers: a row of the 6×16 block is one ZMM
// accumulator, each step of k one load of B and six FMAs that broadcast
// A from memory, so the FMA units, not the loads, set the pace.
TEXT ·kernelAVX512(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	MOVQ b+24(FP), DI
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R9
	MOVQ rows+48(FP), BX
	SHLQ $2, R8
	SHLQ $2, R9

	// Row pointers R10..R14 for rows 1..5, each clamped to row rows-1.
	MOVQ SI, R10
	MOVQ SI, R11
	MOVQ SI, R12
	MOVQ SI, R13
	MOVQ SI, R14
	CMPQ BX, $2
	JLT  rowsdone512
	ADDQ R8, R10
	MOVQ R10, R11
	MOVQ R10, R12
	MOVQ R10, R13
	MOVQ R10, R14
	CMPQ BX, $3
	JLT  rowsdone512
	ADDQ R8, R11
	MOVQ R11, R12
	MOVQ R11, R13
	MOVQ R11, R14
	CMPQ BX, $4
	JLT  rowsdone512
	ADDQ R8, R12
	MOVQ R12, R13
	MOVQ R12, R14
	CMPQ BX, $5
	JLT  rowsdone512
	ADDQ R8, R13
	MOVQ R13, R14
	CMPQ BX, $6
	JLT  rowsdone512
	ADDQ R8, R14

rowsdone512:
	XORQ   AX, AX
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	VXORPS Z4, Z4, Z4
	VXORPS Z5, Z5, Z5
	TESTQ  CX, CX
	JEQ    store512

loop512:
	VMOVUPS          (DI), Z12
	VFMADD231PS.BCST (SI)(AX*1), Z12, Z0
	VFMADD231PS.BCST (R10)(AX*1), Z12, Z1
	VFMADD231PS.BCST (R11)(AX*1), Z12, Z2
	VFMADD231PS.BCST (R12)(AX*1), Z12, Z3
	VFMADD231PS.BCST (R13)(AX*1), Z12, Z4
	VFMADD231PS.BCST (R14)(AX*1), Z12, Z5
	ADDQ             $4, AX
	ADDQ             $64, DI
	DECQ             CX
	JNE              loop512

store512:
	VADDPS  (DX), Z0, Z0
	VMOVUPS Z0, (DX)
	CMPQ    BX, $2
	JLT     done512
	ADDQ    R9, DX
	VADDPS  (DX), Z1, Z1
	VMOVUPS Z1, (DX)
	CMPQ    BX, $3
	JLT     done512
	ADDQ    R9, DX
	VADDPS  (DX), Z2, Z2
	VMOVUPS Z2, (DX)
	CMPQ    BX, $4
	JLT     done512
	ADDQ    R9, DX
	VADDPS  (DX), Z3, Z3
	VMOVUPS Z3, (DX)
	CMPQ    BX, $5
	JLT     done512
	ADDQ    R9, DX
	VADDPS  (DX), Z4, Z4
	VMOVUPS Z4, (DX)
	CMPQ    BX, $6
	JLT     done512
	ADDQ    R9, DX
	VADDPS  (DX), Z5, Z5
	VMOVUPS Z5, (DX)

done512:
	VZEROUPPER
	RET
