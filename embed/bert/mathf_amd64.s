#include "textflag.h"

// Constants, each repeated in the 8 lanes of a YMM register.
DATA vconst<>+0(SB)/4, $0xc2ae999a
DATA vconst<>+4(SB)/4, $0xc2ae999a
DATA vconst<>+8(SB)/4, $0xc2ae999a
DATA vconst<>+12(SB)/4, $0xc2ae999a
DATA vconst<>+16(SB)/4, $0xc2ae999a
DATA vconst<>+20(SB)/4, $0xc2ae999a
DATA vconst<>+24(SB)/4, $0xc2ae999a
DATA vconst<>+28(SB)/4, $0xc2ae999a
DATA vconst<>+32(SB)/4, $0x42b0999a
DATA vconst<>+36(SB)/4, $0x42b0999a
DATA vconst<>+40(SB)/4, $0x42b0999a
DATA vconst<>+44(SB)/4, $0x42b0999a
DATA vconst<>+48(SB)/4, $0x42b0999a
DATA vconst<>+52(SB)/4, $0x42b0999a
DATA vconst<>+56(SB)/4, $0x42b0999a
DATA vconst<>+60(SB)/4, $0x42b0999a
DATA vconst<>+64(SB)/4, $0x3fb8aa3b
DATA vconst<>+68(SB)/4, $0x3fb8aa3b
DATA vconst<>+72(SB)/4, $0x3fb8aa3b
DATA vconst<>+76(SB)/4, $0x3fb8aa3b
DATA vconst<>+80(SB)/4, $0x3fb8aa3b
DATA vconst<>+84(SB)/4, $0x3fb8aa3b
DATA vconst<>+88(SB)/4, $0x3fb8aa3b
DATA vconst<>+92(SB)/4, $0x3fb8aa3b
DATA vconst<>+96(SB)/4, $0x3f318000
DATA vconst<>+100(SB)/4, $0x3f318000
DATA vconst<>+104(SB)/4, $0x3f318000
DATA vconst<>+108(SB)/4, $0x3f318000
DATA vconst<>+112(SB)/4, $0x3f318000
DATA vconst<>+116(SB)/4, $0x3f318000
DATA vconst<>+120(SB)/4, $0x3f318000
DATA vconst<>+124(SB)/4, $0x3f318000
DATA vconst<>+128(SB)/4, $0xb95e8083
DATA vconst<>+132(SB)/4, $0xb95e8083
DATA vconst<>+136(SB)/4, $0xb95e8083
DATA vconst<>+140(SB)/4, $0xb95e8083
DATA vconst<>+144(SB)/4, $0xb95e8083
DATA vconst<>+148(SB)/4, $0xb95e8083
DATA vconst<>+152(SB)/4, $0xb95e8083
DATA vconst<>+156(SB)/4, $0xb95e8083
DATA vconst<>+160(SB)/4, $0x3ab60b61
DATA vconst<>+164(SB)/4, $0x3ab60b61
DATA vconst<>+168(SB)/4, $0x3ab60b61
DATA vconst<>+172(SB)/4, $0x3ab60b61
DATA vconst<>+176(SB)/4, $0x3ab60b61
DATA vconst<>+180(SB)/4, $0x3ab60b61
DATA vconst<>+184(SB)/4, $0x3ab60b61
DATA vconst<>+188(SB)/4, $0x3ab60b61
DATA vconst<>+192(SB)/4, $0x3c088889
DATA vconst<>+196(SB)/4, $0x3c088889
DATA vconst<>+200(SB)/4, $0x3c088889
DATA vconst<>+204(SB)/4, $0x3c088889
DATA vconst<>+208(SB)/4, $0x3c088889
DATA vconst<>+212(SB)/4, $0x3c088889
DATA vconst<>+216(SB)/4, $0x3c088889
DATA vconst<>+220(SB)/4, $0x3c088889
DATA vconst<>+224(SB)/4, $0x3d2aaaab
DATA vconst<>+228(SB)/4, $0x3d2aaaab
DATA vconst<>+232(SB)/4, $0x3d2aaaab
DATA vconst<>+236(SB)/4, $0x3d2aaaab
DATA vconst<>+240(SB)/4, $0x3d2aaaab
DATA vconst<>+244(SB)/4, $0x3d2aaaab
DATA vconst<>+248(SB)/4, $0x3d2aaaab
DATA vconst<>+252(SB)/4, $0x3d2aaaab
DATA vconst<>+256(SB)/4, $0x3e2aaaab
DATA vconst<>+260(SB)/4, $0x3e2aaaab
DATA vconst<>+264(SB)/4, $0x3e2aaaab
DATA vconst<>+268(SB)/4, $0x3e2aaaab
DATA vconst<>+272(SB)/4, $0x3e2aaaab
DATA vconst<>+276(SB)/4, $0x3e2aaaab
DATA vconst<>+280(SB)/4, $0x3e2aaaab
DATA vconst<>+284(SB)/4, $0x3e2aaaab
DATA vconst<>+288(SB)/4, $0x3f000000
DATA vconst<>+292(SB)/4, $0x3f000000
DATA vconst<>+296(SB)/4, $0x3f000000
DATA vconst<>+300(SB)/4, $0x3f000000
DATA vconst<>+304(SB)/4, $0x3f000000
DATA vconst<>+308(SB)/4, $0x3f000000
DATA vconst<>+312(SB)/4, $0x3f000000
DATA vconst<>+316(SB)/4, $0x3f000000
DATA vconst<>+320(SB)/4, $0x3f800000
DATA vconst<>+324(SB)/4, $0x3f800000
DATA vconst<>+328(SB)/4, $0x3f800000
DATA vconst<>+332(SB)/4, $0x3f800000
DATA vconst<>+336(SB)/4, $0x3f800000
DATA vconst<>+340(SB)/4, $0x3f800000
DATA vconst<>+344(SB)/4, $0x3f800000
DATA vconst<>+348(SB)/4, $0x3f800000
DATA vconst<>+352(SB)/4, $0x0000007f
DATA vconst<>+356(SB)/4, $0x0000007f
DATA vconst<>+360(SB)/4, $0x0000007f
DATA vconst<>+364(SB)/4, $0x0000007f
DATA vconst<>+368(SB)/4, $0x0000007f
DATA vconst<>+372(SB)/4, $0x0000007f
DATA vconst<>+376(SB)/4, $0x0000007f
DATA vconst<>+380(SB)/4, $0x0000007f
DATA vconst<>+384(SB)/4, $0x3ea7ba05
DATA vconst<>+388(SB)/4, $0x3ea7ba05
DATA vconst<>+392(SB)/4, $0x3ea7ba05
DATA vconst<>+396(SB)/4, $0x3ea7ba05
DATA vconst<>+400(SB)/4, $0x3ea7ba05
DATA vconst<>+404(SB)/4, $0x3ea7ba05
DATA vconst<>+408(SB)/4, $0x3ea7ba05
DATA vconst<>+412(SB)/4, $0x3ea7ba05
DATA vconst<>+416(SB)/4, $0x3e827906
DATA vconst<>+420(SB)/4, $0x3e827906
DATA vconst<>+424(SB)/4, $0x3e827906
DATA vconst<>+428(SB)/4, $0x3e827906
DATA vconst<>+432(SB)/4, $0x3e827906
DATA vconst<>+436(SB)/4, $0x3e827906
DATA vconst<>+440(SB)/4, $0x3e827906
DATA vconst<>+444(SB)/4, $0x3e827906
DATA vconst<>+448(SB)/4, $0xbe91a98e
DATA vconst<>+452(SB)/4, $0xbe91a98e
DATA vconst<>+456(SB)/4, $0xbe91a98e
DATA vconst<>+460(SB)/4, $0xbe91a98e
DATA vconst<>+464(SB)/4, $0xbe91a98e
DATA vconst<>+468(SB)/4, $0xbe91a98e
DATA vconst<>+472(SB)/4, $0xbe91a98e
DATA vconst<>+476(SB)/4, $0xbe91a98e
DATA vconst<>+480(SB)/4, $0x3fb5f0e3
DATA vconst<>+484(SB)/4, $0x3fb5f0e3
DATA vconst<>+488(SB)/4, $0x3fb5f0e3
DATA vconst<>+492(SB)/4, $0x3fb5f0e3
DATA vconst<>+496(SB)/4, $0x3fb5f0e3
DATA vconst<>+500(SB)/4, $0x3fb5f0e3
DATA vconst<>+504(SB)/4, $0x3fb5f0e3
DATA vconst<>+508(SB)/4, $0x3fb5f0e3
DATA vconst<>+512(SB)/4, $0xbfba00e3
DATA vconst<>+516(SB)/4, $0xbfba00e3
DATA vconst<>+520(SB)/4, $0xbfba00e3
DATA vconst<>+524(SB)/4, $0xbfba00e3
DATA vconst<>+528(SB)/4, $0xbfba00e3
DATA vconst<>+532(SB)/4, $0xbfba00e3
DATA vconst<>+536(SB)/4, $0xbfba00e3
DATA vconst<>+540(SB)/4, $0xbfba00e3
DATA vconst<>+544(SB)/4, $0x3f87dc22
DATA vconst<>+548(SB)/4, $0x3f87dc22
DATA vconst<>+552(SB)/4, $0x3f87dc22
DATA vconst<>+556(SB)/4, $0x3f87dc22
DATA vconst<>+560(SB)/4, $0x3f87dc22
DATA vconst<>+564(SB)/4, $0x3f87dc22
DATA vconst<>+568(SB)/4, $0x3f87dc22
DATA vconst<>+572(SB)/4, $0x3f87dc22
DATA vconst<>+576(SB)/4, $0x3f3504f3
DATA vconst<>+580(SB)/4, $0x3f3504f3
DATA vconst<>+584(SB)/4, $0x3f3504f3
DATA vconst<>+588(SB)/4, $0x3f3504f3
DATA vconst<>+592(SB)/4, $0x3f3504f3
DATA vconst<>+596(SB)/4, $0x3f3504f3
DATA vconst<>+600(SB)/4, $0x3f3504f3
DATA vconst<>+604(SB)/4, $0x3f3504f3
DATA vconst<>+608(SB)/4, $0x3f000000
DATA vconst<>+612(SB)/4, $0x3f000000
DATA vconst<>+616(SB)/4, $0x3f000000
DATA vconst<>+620(SB)/4, $0x3f000000
DATA vconst<>+624(SB)/4, $0x3f000000
DATA vconst<>+628(SB)/4, $0x3f000000
DATA vconst<>+632(SB)/4, $0x3f000000
DATA vconst<>+636(SB)/4, $0x3f000000
DATA vconst<>+640(SB)/4, $0x7fffffff
DATA vconst<>+644(SB)/4, $0x7fffffff
DATA vconst<>+648(SB)/4, $0x7fffffff
DATA vconst<>+652(SB)/4, $0x7fffffff
DATA vconst<>+656(SB)/4, $0x7fffffff
DATA vconst<>+660(SB)/4, $0x7fffffff
DATA vconst<>+664(SB)/4, $0x7fffffff
DATA vconst<>+668(SB)/4, $0x7fffffff
DATA vconst<>+672(SB)/4, $0x80000000
DATA vconst<>+676(SB)/4, $0x80000000
DATA vconst<>+680(SB)/4, $0x80000000
DATA vconst<>+684(SB)/4, $0x80000000
DATA vconst<>+688(SB)/4, $0x80000000
DATA vconst<>+692(SB)/4, $0x80000000
DATA vconst<>+696(SB)/4, $0x80000000
DATA vconst<>+700(SB)/4, $0x80000000
GLOBL vconst<>(SB), RODATA|NOPTR, $704

// EXP sets Y0 to e^Y0 (lanes clamped to [-87.3, 88.3]), using Y1 and Y2:
// x = n·ln2 + r, e^r by its degree-6 Taylor polynomial, 2ⁿ in the
// exponent bits; the algorithm of exp32.
#define EXP \
	VMAXPS       vconst<>+0(SB), Y0, Y0 \
	VMINPS       vconst<>+32(SB), Y0, Y0 \
	VMULPS       vconst<>+64(SB), Y0, Y1 \
	VROUNDPS     $0, Y1, Y1 \
	VFNMADD231PS vconst<>+96(SB), Y1, Y0 \
	VFNMADD231PS vconst<>+128(SB), Y1, Y0 \
	VMOVUPS      vconst<>+160(SB), Y2 \
	VFMADD213PS  vconst<>+192(SB), Y0, Y2 \
	VFMADD213PS  vconst<>+224(SB), Y0, Y2 \
	VFMADD213PS  vconst<>+256(SB), Y0, Y2 \
	VFMADD213PS  vconst<>+288(SB), Y0, Y2 \
	VFMADD213PS  vconst<>+320(SB), Y0, Y2 \
	VFMADD213PS  vconst<>+320(SB), Y0, Y2 \
	VCVTPS2DQ    Y1, Y1 \
	VPADDD       vconst<>+352(SB), Y1, Y1 \
	VPSLLD       $23, Y1, Y1 \
	VMULPS       Y1, Y2, Y0

// func expAVX2(x *float32, n int)
//
// x[i] = e^x[i] for i < n, n a multiple of 8.
TEXT ·expAVX2(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	SHRQ $3, CX
	JEQ  expdone

exploop:
	VMOVUPS (DI), Y0
	EXP
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	DECQ    CX
	JNE     exploop

expdone:
	VZEROUPPER
	RET

// func geluAVX2(x *float32, n int)
//
// x[i] = GELU(x[i]) = x·(1 + erf(x/√2))/2 for i < n, n a multiple of 8;
// erf as erf32 computes it (Abramowitz and Stegun 7.1.26).
TEXT ·geluAVX2(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	SHRQ $3, CX
	JEQ  geludone

geluloop:
	VMOVUPS      (DI), Y4
	VANDPS       vconst<>+640(SB), Y4, Y5
	VMULPS       vconst<>+576(SB), Y5, Y5
	VMOVUPS      vconst<>+320(SB), Y6
	VFMADD231PS  vconst<>+384(SB), Y5, Y6
	VMOVUPS      vconst<>+320(SB), Y7
	VDIVPS       Y6, Y7, Y6
	VMOVUPS      vconst<>+544(SB), Y7
	VFMADD213PS  vconst<>+512(SB), Y6, Y7
	VFMADD213PS  vconst<>+480(SB), Y6, Y7
	VFMADD213PS  vconst<>+448(SB), Y6, Y7
	VFMADD213PS  vconst<>+416(SB), Y6, Y7
	VMULPS       Y6, Y7, Y7
	VMULPS       Y5, Y5, Y0
	VXORPS       vconst<>+672(SB), Y0, Y0
	EXP
	VMOVUPS      vconst<>+320(SB), Y1
	VFNMADD231PS Y7, Y0, Y1
	VANDPS       vconst<>+672(SB), Y4, Y2
	VXORPS       Y2, Y1, Y1
	VADDPS       vconst<>+320(SB), Y1, Y1
	VMULPS       vconst<>+608(SB), Y4, Y4
	VMULPS       Y1, Y4, Y4
	VMOVUPS      Y4, (DI)
	ADDQ         $32, DI
	DECQ         CX
	JNE          geluloop

geludone:
	VZEROUPPER
	RET

// func softmaxAVX2(v *float32, n int, scale float32)
//
// v[i] = e^((v[i]-max)·scale) / Σ, over n values, n a multiple of 8: a
// pass for the maximum, one for the exponentials and their sum, one to
// divide.
TEXT ·softmaxAVX2(SB), NOSPLIT, $0-20
	MOVQ         v+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS scale+16(FP), Y8
	SHRQ         $3, CX
	JEQ          smdone
	MOVQ         DI, SI
	MOVQ         CX, DX
	VMOVUPS      (SI), Y9

smmax:
	VMAXPS (SI), Y9, Y9
	ADDQ   $32, SI
	DECQ   DX
	JNE    smmax
	VPERM2F128 $1, Y9, Y9, Y10
	VMAXPS     Y10, Y9, Y9
	VPERMILPS  $0x4E, Y9, Y10
	VMAXPS     Y10, Y9, Y9
	VPERMILPS  $0xB1, Y9, Y10
	VMAXPS     Y10, Y9, Y9
	VXORPS     Y11, Y11, Y11
	MOVQ       DI, SI
	MOVQ       CX, DX

smexp:
	VMOVUPS (SI), Y0
	VSUBPS  Y9, Y0, Y0
	VMULPS  Y8, Y0, Y0
	EXP
	VMOVUPS Y0, (SI)
	VADDPS  Y0, Y11, Y11
	ADDQ    $32, SI
	DECQ    DX
	JNE     smexp
	VPERM2F128 $1, Y11, Y11, Y10
	VADDPS     Y10, Y11, Y11
	VPERMILPS  $0x4E, Y11, Y10
	VADDPS     Y10, Y11, Y11
	VPERMILPS  $0xB1, Y11, Y10
	VADDPS     Y10, Y11, Y11
	VMOVUPS    vconst<>+320(SB), Y10
	VDIVPS     Y11, Y10, Y10
	MOVQ       DI, SI
	MOVQ       CX, DX

smnorm:
	VMULPS  (SI), Y10, Y0
	VMOVUPS Y0, (SI)
	ADDQ    $32, SI
	DECQ    DX
	JNE     smnorm

smdone:
	VZEROUPPER
	RET
