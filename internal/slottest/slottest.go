package slottest

import (
	"context"
	"fmt"

	"github.com/weftrt/weft/slots"
)

// Wrapping is a supplier whose failed reservations wrap the error in its
// own, as a supplier that says who it is would. It closes Waiting as a
// reservation starts to wait, so a test can cancel while one waits; it
// serves one reservation.
type Wrapping struct {
	slots.Supplier
	Waiting chan struct{}
}

// NewWrapping returns a Wrapping over a supplier that grants nothing.
func NewWrapping() Wrapping {
	s := slots.NewPauseable(slots.NewFixed(1))
	s.Pause(slots.PauseOptions{})
	return Wrapping{Supplier: s, Waiting: make(chan struct{})}
}

// ReserveSlot reserves from the wrapped supplier and wraps its error.
func (w Wrapping) ReserveSlot(ctx context.Context, rc slots.ReserveContext) (slots.Permit, error) {
	close(w.Waiting)
	p, err := w.Supplier.ReserveSlot(ctx, rc)
	if err != nil {
		err = fmt.Errorf("wrapping supplier: %w", err)
	}
	return p, err
}
