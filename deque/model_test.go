package deque_test

import (
	"fmt"
	"math"

	"github.com/weftrt/weft/deque"
)

// This file holds the sequential slice model shared by the model test and the
// fuzz target.

// Op codes for byte-encoded operation sequences: the low two bits of a byte.
const (
	opPush  = 0
	opPush2 = 1 // a second push code, so random bytes grow the deque
	opPop   = 2
	opSteal = 3
)

// configs are deque set-ups the sequential checks run against. The index is
// chosen by the first byte of a fuzz input.
var configs = []struct {
	name string
	make func() *deque.Deque[int]
}{
	{"zero", func() *deque.Deque[int] { return new(deque.Deque[int]) }},
	{"cap1", func() *deque.Deque[int] { return deque.New[int](1) }},
	{"shrinking", func() *deque.Deque[int] {
		d := deque.New[int](2)
		d.SetShrinkFloor(2)
		return d
	}},
	{"bigIndex", func() *deque.Deque[int] {
		d := deque.NewAt[int](4, math.MaxInt64-1<<20-3)
		d.SetShrinkFloor(4)
		return d
	}},
	{"oddStart", func() *deque.Deque[int] { return deque.NewAt[int](8, 1<<40+5) }},
}

// checkSequential applies ops (two bits per byte) to d from one goroutine,
// checking every result against a slice model, and finally drains d. It
// returns the first discrepancy found.
func checkSequential(d *deque.Deque[int], ops []byte) error {
	var model []int
	next := 0
	for i, code := range ops {
		var err error
		model, err = step(d, model, code&3, &next)
		if err != nil {
			return fmt.Errorf("op %d (code %d): %w", i, code&3, err)
		}
		if got := d.Len(); got != len(model) {
			return fmt.Errorf("op %d: Len() = %d, model has %d", i, got, len(model))
		}
		if d.IsEmpty() != (len(model) == 0) {
			return fmt.Errorf("op %d: IsEmpty() = %v with %d elements", i, d.IsEmpty(), len(model))
		}
	}
	for len(model) > 0 {
		var err error
		if model, err = step(d, model, opSteal, &next); err != nil {
			return fmt.Errorf("drain: %w", err)
		}
	}
	if x, ok := d.Pop(); ok {
		return fmt.Errorf("drained deque popped %d", *x)
	}
	return nil
}

// step applies one operation to d and to model and compares the results.
func step(d *deque.Deque[int], model []int, code byte, next *int) ([]int, error) {
	switch code {
	case opPush, opPush2:
		v := *next
		*next++
		d.Push(&v)
		return append(model, v), nil
	case opPop:
		x, ok := d.Pop()
		if len(model) == 0 {
			if ok {
				return model, fmt.Errorf("Pop on empty returned %d", *x)
			}
			return model, nil
		}
		want := model[len(model)-1]
		if !ok || *x != want {
			return model, fmt.Errorf("Pop = %v, want %d", show(x, ok), want)
		}
		return model[:len(model)-1], nil
	default:
		x, r := d.Steal()
		if len(model) == 0 {
			if r != deque.Empty {
				return model, fmt.Errorf("Steal on empty = %v", r)
			}
			return model, nil
		}
		if r != deque.Success || *x != model[0] {
			return model, fmt.Errorf("Steal = %v/%v, want %d", show(x, r == deque.Success), r, model[0])
		}
		return model[1:], nil
	}
}

// show formats an optional element.
func show(x *int, ok bool) string {
	if !ok || x == nil {
		return "none"
	}
	return fmt.Sprint(*x)
}
