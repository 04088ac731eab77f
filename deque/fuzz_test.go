package deque_test

import "testing"

// FuzzDeque reads its input as a configuration byte (selecting one of
// configs) followed by one operation per byte (low two bits: push, push,
// pop, steal), and checks the results against the slice model.
func FuzzDeque(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{0, opPush, opPop, opPop, opSteal})
	f.Add([]byte{1, opPush, opPush, opPush, opSteal, opPop, opSteal, opSteal})
	f.Add([]byte{2, opPush, opPush, opPush, opPush, opPush, opPush, opPush, opPush, opPush,
		opPop, opPop, opPop, opPop, opPop, opPop, opPop, opSteal, opPush, opPop})
	f.Add([]byte{3, opPush, opPush2, opPush, opPush2, opPush, opSteal, opSteal, opPop, opPush})
	f.Add([]byte{4, opSteal, opPush, opSteal, opPush, opPush, opPop, opPop, opPop})
	grow := []byte{2}
	for range 40 {
		grow = append(grow, opPush)
	}
	for range 38 {
		grow = append(grow, opPop)
	}
	f.Add(grow)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		d := configs[int(data[0])%len(configs)].make()
		if err := checkSequential(d, data[1:]); err != nil {
			t.Fatal(err)
		}
	})
}
