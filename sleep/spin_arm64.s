#include "textflag.h"

// func spinWait(n uint32)
TEXT ·spinWait(SB), NOSPLIT, $0-4
	MOVWU n+0(FP), R0
loop:
	YIELD
	SUBW  $1, R0
	CBNZ  R0, loop
	RET
