#include "textflag.h"

// func dotLanes(q, rows *float32, stride, blocks, n int, lanes *float32)
// Four rows at a time share each load of q; each row has its own
// accumulator register, whose lane j is dot's sum s_j.
TEXT ·dotLanes(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ stride+16(FP), R8
	SHLQ $2, R8
	MOVQ blocks+24(FP), CX
	MOVQ n+32(FP), DX
	MOVQ lanes+40(FP), R9

four:
	CMPQ DX, $4
	JLT  one
	LEAQ (DI)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ AX, AX
	MOVQ CX, BX

block4:
	VMOVUPS (SI)(AX*1), Y4
	VMULPS  (DI)(AX*1), Y4, Y5
	VADDPS  Y5, Y0, Y0
	VMULPS  (R10)(AX*1), Y4, Y6
	VADDPS  Y6, Y1, Y1
	VMULPS  (R11)(AX*1), Y4, Y7
	VADDPS  Y7, Y2, Y2
	VMULPS  (R12)(AX*1), Y4, Y8
	VADDPS  Y8, Y3, Y3
	ADDQ    $32, AX
	DECQ    BX
	JNZ     block4

	VMOVUPS Y0, (R9)
	VMOVUPS Y1, 32(R9)
	VMOVUPS Y2, 64(R9)
	VMOVUPS Y3, 96(R9)
	ADDQ    $128, R9
	LEAQ    (R12)(R8*1), DI
	SUBQ    $4, DX
	JMP     four

one:
	TESTQ DX, DX
	JZ    done
	VXORPS Y0, Y0, Y0
	XORQ   AX, AX
	MOVQ   CX, BX

block1:
	VMOVUPS (SI)(AX*1), Y4
	VMULPS  (DI)(AX*1), Y4, Y5
	VADDPS  Y5, Y0, Y0
	ADDQ    $32, AX
	DECQ    BX
	JNZ     block1

	VMOVUPS Y0, (R9)
	ADDQ    $32, R9
	ADDQ    R8, DI
	DECQ    DX
	JMP     one

done:
	VZEROUPPER
	RET

// func dot8Lanes(q *float32, rows *int8, scales *float32, stride, blocks, n int, lanes *float32)
// As dotLanes over int8 rows: each component is widened, converted to
// float32 (exact), multiplied by its row's scale (rounded), then by q's
// component (rounded) and added (rounded): dot8's operations, lane by
// lane.
TEXT ·dot8Lanes(SB), NOSPLIT, $0-56
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ scales+16(FP), R13
	MOVQ stride+24(FP), R8
	MOVQ blocks+32(FP), CX
	MOVQ n+40(FP), DX
	MOVQ lanes+48(FP), R9
	SHLQ $3, CX

four8:
	CMPQ DX, $4
	JLT  one8
	LEAQ (DI)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	VBROADCASTSS (R13), Y9
	VBROADCASTSS 4(R13), Y10
	VBROADCASTSS 8(R13), Y11
	VBROADCASTSS 12(R13), Y12
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ AX, AX

block48:
	VMOVUPS   (SI)(AX*4), Y4
	VPMOVSXBD (DI)(AX*1), Y5
	VCVTDQ2PS Y5, Y5
	VMULPS    Y9, Y5, Y5
	VMULPS    Y4, Y5, Y5
	VADDPS    Y5, Y0, Y0
	VPMOVSXBD (R10)(AX*1), Y6
	VCVTDQ2PS Y6, Y6
	VMULPS    Y10, Y6, Y6
	VMULPS    Y4, Y6, Y6
	VADDPS    Y6, Y1, Y1
	VPMOVSXBD (R11)(AX*1), Y7
	VCVTDQ2PS Y7, Y7
	VMULPS    Y11, Y7, Y7
	VMULPS    Y4, Y7, Y7
	VADDPS    Y7, Y2, Y2
	VPMOVSXBD (R12)(AX*1), Y8
	VCVTDQ2PS Y8, Y8
	VMULPS    Y12, Y8, Y8
	VMULPS    Y4, Y8, Y8
	VADDPS    Y8, Y3, Y3
	ADDQ      $8, AX
	CMPQ      AX, CX
	JLT       block48

	VMOVUPS Y0, (R9)
	VMOVUPS Y1, 32(R9)
	VMOVUPS Y2, 64(R9)
	VMOVUPS Y3, 96(R9)
	ADDQ    $128, R9
	ADDQ    $16, R13
	LEAQ    (R12)(R8*1), DI
	SUBQ    $4, DX
	JMP     four8

one8:
	TESTQ DX, DX
	JZ    done8
	VBROADCASTSS (R13), Y9
	VXORPS Y0, Y0, Y0
	XORQ   AX, AX

block18:
	VMOVUPS   (SI)(AX*4), Y4
	VPMOVSXBD (DI)(AX*1), Y5
	VCVTDQ2PS Y5, Y5
	VMULPS    Y9, Y5, Y5
	VMULPS    Y4, Y5, Y5
	VADDPS    Y5, Y0, Y0
	ADDQ      $8, AX
	CMPQ      AX, CX
	JLT       block18

	VMOVUPS Y0, (R9)
	ADDQ    $32, R9
	ADDQ    $4, R13
	ADDQ    R8, DI
	DECQ    DX
	JMP     one8

done8:
	VZEROUPPER
	RET
