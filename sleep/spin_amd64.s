#include "textflag.h"

// func spinWait(n uint32)
TEXT ·spinWait(SB), NOSPLIT, $0-4
	MOVL n+0(FP), AX
loop:
	PAUSE
	DECL AX
	JNZ  loop
	RET
