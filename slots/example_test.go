package slots_test

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/weftrt/weft/slots"
)

// The protocol as a pool follows it: reserve a slot before taking a task,
// mark it used when a worker starts the task, release it with the reason
// when the task ends.
func Example() {
	tracker := slots.NewTracker(slots.NewFixed(2))
	ctx := context.Background()

	p, err := tracker.Reserve(ctx, "thumbnail")
	if err != nil {
		fmt.Println("no slot:", err)
		return
	}
	_ = tracker.MarkUsed(p, slots.TaskInfo{Kind: "thumbnail"})
	s := tracker.Stats()
	fmt.Printf("in use %d, available %d\n", s.InUse, s.Available)

	fmt.Println(tracker.Release(p, slots.TaskComplete()))
	err = tracker.Release(p, slots.TaskComplete())
	fmt.Println(errors.Is(err, slots.ErrReleasedTwice))
	s = tracker.Stats()
	fmt.Printf("in use %d, available %d, issued %d\n", s.InUse, s.Available, s.Issued)
	// Output:
	// in use 1, available 1
	// <nil>
	// true
	// in use 0, available 2, issued 1
}

// exclusiveSupplier hands out slots of an inner supplier, except that
// while a task of kind "exclusive" runs, no new slot is handed out: that
// kind must not be joined by new work until it is done. (It does not wait
// for tasks already running to finish.)
type exclusiveSupplier struct {
	inner slots.Supplier

	mu      sync.Mutex
	running uint64        // permit ID of the exclusive task running; 0: none
	done    chan struct{} // closed when that task ends
}

func (s *exclusiveSupplier) ReserveSlot(ctx context.Context, rc slots.ReserveContext) (slots.Permit, error) {
	for {
		if err := s.waitExclusive(ctx); err != nil {
			return slots.Permit{}, err
		}
		p, err := s.inner.ReserveSlot(ctx, rc)
		if err != nil {
			return slots.Permit{}, err
		}
		if !s.exclusiveRunning() {
			return p, nil
		}
		// An exclusive task started while we waited: give the slot back.
		s.inner.ReleaseSlot(slots.ReleaseInfo{Permit: p, Reason: slots.NeverUsed()})
	}
}

func (s *exclusiveSupplier) TryReserveSlot(rc slots.ReserveContext) (slots.Permit, bool) {
	if s.exclusiveRunning() {
		return slots.Permit{}, false
	}
	return s.inner.TryReserveSlot(rc)
}

func (s *exclusiveSupplier) MarkSlotUsed(u slots.UsedInfo) {
	if u.Task.Kind == "exclusive" {
		s.mu.Lock()
		s.running, s.done = u.Permit.ID(), make(chan struct{})
		s.mu.Unlock()
	}
	s.inner.MarkSlotUsed(u)
}

func (s *exclusiveSupplier) ReleaseSlot(r slots.ReleaseInfo) {
	s.mu.Lock()
	if r.Permit.ID() == s.running {
		s.running = 0
		close(s.done)
	}
	s.mu.Unlock()
	s.inner.ReleaseSlot(r)
}

func (s *exclusiveSupplier) MaxSlots() int { return s.inner.MaxSlots() }

func (s *exclusiveSupplier) exclusiveRunning() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running != 0
}

// waitExclusive returns when no exclusive task runs, or ctx is done.
func (s *exclusiveSupplier) waitExclusive(ctx context.Context) error {
	for {
		s.mu.Lock()
		running, done := s.running, s.done
		s.mu.Unlock()
		if running == 0 {
			return nil
		}
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// A custom supplier, after the coordinating supplier of the slot-supplier
// proposal: a task of kind "exclusive" keeps new work out while it runs.
func Example_customSupplier() {
	tracker := slots.NewTracker(&exclusiveSupplier{inner: slots.NewFixed(4)})
	ctx := context.Background()

	report, _ := tracker.Reserve(ctx, "report")
	_ = tracker.MarkUsed(report, slots.TaskInfo{Kind: "report"})
	migrate, _ := tracker.Reserve(ctx, "exclusive")
	_ = tracker.MarkUsed(migrate, slots.TaskInfo{Kind: "exclusive"})

	_, ok := tracker.TryReserve("report")
	fmt.Println("slot while exclusive runs:", ok)

	got := make(chan string)
	go func() {
		p, err := tracker.Reserve(ctx, "report")
		if err != nil {
			got <- err.Error()
			return
		}
		got <- "slot after the exclusive task"
		_ = tracker.Release(p, slots.NeverUsed())
		close(got)
	}()
	_ = tracker.Release(migrate, slots.TaskComplete())
	fmt.Println(<-got)
	<-got
	_ = tracker.Release(report, slots.TaskComplete())
	fmt.Println("in use:", tracker.Stats().InUse)
	// Output:
	// slot while exclusive runs: false
	// slot after the exclusive task
	// in use: 0
}

// Pausing stops new reservations; slots already out are unaffected.
func ExamplePauseable() {
	pauseable := slots.NewPauseable(slots.NewFixed(2))
	tracker := slots.NewTracker(pauseable)

	p, _ := tracker.TryReserve("")
	pauseable.Pause(slots.PauseOptions{})
	_, ok := tracker.TryReserve("")
	fmt.Println("paused:", pauseable.Paused(), "granted:", ok)
	fmt.Println("release while paused:", tracker.Release(p, slots.TaskComplete()))
	pauseable.Resume()
	_, ok = tracker.TryReserve("")
	fmt.Println("paused:", pauseable.Paused(), "granted:", ok)
	// Output:
	// paused: true granted: false
	// release while paused: <nil>
	// paused: false granted: true
}

// A Fixed used directly, as a supplier is called by a Tracker.
func ExampleNewFixed() {
	f := slots.NewFixed(1)
	p, _ := f.TryReserveSlot(slots.ReserveContext{})
	_, ok := f.TryReserveSlot(slots.ReserveContext{})
	fmt.Println("second slot:", ok)
	f.ReleaseSlot(slots.ReleaseInfo{Permit: p, Reason: slots.NeverUsed()})
	_, ok = f.TryReserveSlot(slots.ReserveContext{})
	fmt.Println("after release:", ok)
	// Output:
	// second slot: false
	// after release: true
}

// busyMachine is a Sampler that reads the CPU 95% busy. Leave
// ResourceOptions.Sampler nil to read the process's real figures
// (NewSystemSampler: cgroup v2 limits, else the host's).
type busyMachine struct{}

func (busyMachine) Sample() (slots.Usage, error) {
	return slots.Usage{CPU: 0.95, Memory: 0.40}, nil
}

// A ResourceBased supplier hands out slots while CPU and memory stay under
// their targets, and MinSlots whatever the usage. Give it to a pool with
// scheduler.WithSupplier, or to an intake worker as Config.Supplier.
func ExampleNewResourceBased() {
	rb, err := slots.NewResourceBased(slots.ResourceOptions{
		TargetCPU:    0.80, // fill at most 80% of the CPU allowance
		TargetMemory: 0.90,
		MinSlots:     2, // granted even over the targets
		MaxSlots:     16,
		Sampler:      busyMachine{},
	})
	if err != nil {
		panic(err)
	}
	tracker := slots.NewTracker(rb)
	var permits []slots.Permit
	for range 4 {
		if p, ok := tracker.TryReserve("resize"); ok {
			permits = append(permits, p)
		}
	}
	st := rb.State()
	fmt.Printf("granted %d of 4: CPU at %.2f is over its target\n", len(permits), st.Usage.CPU)
	for _, p := range permits {
		_ = tracker.Release(p, slots.NeverUsed())
	}
	fmt.Println("held after release:", rb.State().Held)

	_, err = slots.NewResourceBased(slots.ResourceOptions{TargetCPU: 1.5, TargetMemory: 0.9})
	fmt.Println(err)
	// Output:
	// granted 2 of 4: CPU at 0.95 is over its target
	// held after release: 0
	// weft/slots: ResourceOptions.TargetCPU = 1.5: want a fraction in (0, 1]
}

// Unlimited admits everything; through a Tracker it still counts what is
// out.
func ExampleUnlimited() {
	tracker := slots.NewTracker(slots.Unlimited{})
	p, _ := tracker.Reserve(context.Background(), "log")
	_ = tracker.MarkUsed(p, slots.TaskInfo{Kind: "log"})
	s := tracker.Stats()
	fmt.Println("in use:", s.InUse, "available:", s.Available)
	_ = tracker.Release(p, slots.TaskComplete())
	fmt.Println("in use:", tracker.Stats().InUse)
	// Output:
	// in use: 1 available: -1
	// in use: 0
}
