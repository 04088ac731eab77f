package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// audit wraps a supplier and checks the slot protocol as the pool drives
// it: every granted permit is marked used at most once and released
// exactly once, and no more slots are in use than the inner supplier has.
type audit struct {
	inner slots.Supplier
	t     *testing.T

	mu      sync.Mutex
	state   map[uint64]string // permit id -> "reserved", "used", "released"
	inUse   int
	maxUse  int
	reasons map[slots.ReasonKind]int
}

func newAudit(t *testing.T, inner slots.Supplier) *audit {
	return &audit{inner: inner, t: t, state: map[uint64]string{}, reasons: map[slots.ReasonKind]int{}}
}

func (a *audit) granted(p slots.Permit) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, seen := a.state[p.ID()]; seen {
		a.t.Errorf("permit %d granted twice", p.ID())
	}
	a.state[p.ID()] = "reserved"
}

func (a *audit) ReserveSlot(ctx context.Context, rc slots.ReserveContext) (slots.Permit, error) {
	p, err := a.inner.ReserveSlot(ctx, rc)
	if err == nil {
		a.granted(p)
	}
	return p, err
}

func (a *audit) TryReserveSlot(rc slots.ReserveContext) (slots.Permit, bool) {
	p, ok := a.inner.TryReserveSlot(rc)
	if ok {
		a.granted(p)
	}
	return p, ok
}

func (a *audit) MarkSlotUsed(u slots.UsedInfo) {
	a.mu.Lock()
	if s := a.state[u.Permit.ID()]; s != "reserved" {
		a.t.Errorf("permit %d marked used in state %q", u.Permit.ID(), s)
	}
	a.state[u.Permit.ID()] = "used"
	a.inUse++
	a.maxUse = max(a.maxUse, a.inUse)
	if m := a.inner.MaxSlots(); m > 0 && a.inUse > m {
		a.t.Errorf("%d slots in use, max %d", a.inUse, m)
	}
	a.mu.Unlock()
	a.inner.MarkSlotUsed(u)
}

func (a *audit) ReleaseSlot(r slots.ReleaseInfo) {
	a.mu.Lock()
	switch s := a.state[r.Permit.ID()]; s {
	case "used":
		a.inUse--
	case "reserved":
	default:
		a.t.Errorf("permit %d released in state %q", r.Permit.ID(), s)
	}
	a.state[r.Permit.ID()] = "released"
	a.reasons[r.Reason.Kind()]++
	a.mu.Unlock()
	a.inner.ReleaseSlot(r)
}

func (a *audit) MaxSlots() int { return a.inner.MaxSlots() }

// outstanding returns the permits granted and not released.
func (a *audit) outstanding() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for id, s := range a.state {
		if s != "released" {
			out = append(out, fmt.Sprintf("%d:%s", id, s))
		}
	}
	return out
}

// TestStressAdmission drives the door with blocking and non-blocking
// submissions, random cancellations, pauses and resumes, and panicking
// tasks, and checks the slot invariants throughout and at the end.
func TestStressAdmission(t *testing.T) {
	submissions := 10_000
	if testing.Short() {
		submissions = 1_000
	}
	const maxSlots = 2 // fewer than the workers, so the bound binds
	pauser := slots.NewPauseable(slots.NewFixed(maxSlots))
	a := newAudit(t, pauser)
	var panics atomic.Int64
	p, err := scheduler.New(scheduler.WithWorkers(3), scheduler.WithSupplier(a),
		scheduler.WithPanicHandler(func(*scheduler.Panic) { panics.Add(1) }))
	require.NoError(t, err)

	var ran, refused, cancelled, submittedPanics atomic.Int64
	var wg sync.WaitGroup
	const submitters = 4
	for g := range submitters {
		wg.Go(func() {
			for i := range submissions / submitters {
				task := func(*scheduler.Worker) { ran.Add(1) }
				if i%50 == 7 {
					submittedPanics.Add(1)
					task = func(*scheduler.Worker) { panic("task failed") }
				}
				switch {
				case (g+i)%3 == 0:
					switch err := p.TrySpawn(task); {
					case errors.Is(err, scheduler.ErrNoSlot):
						refused.Add(1)
						if i%50 == 7 {
							submittedPanics.Add(-1)
						}
					case err != nil:
						t.Errorf("TrySpawn: %v", err)
					}
				default:
					ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rand.IntN(200))*time.Microsecond)
					if err := p.Spawn(ctx, task); err != nil {
						if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, slots.ErrPaused) {
							t.Errorf("Spawn: %v", err)
						}
						cancelled.Add(1)
						if i%50 == 7 {
							submittedPanics.Add(-1)
						}
					}
					cancel()
				}
			}
		})
	}
	wg.Go(func() { // pause and resume while the submitters run
		for range 50 {
			time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
			pauser.Pause(slots.PauseOptions{CancelOutstanding: rand.IntN(2) == 0})
			time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
			pauser.Resume()
		}
	})
	wg.Wait()
	p.Close()

	assert.Empty(t, a.outstanding(), "every reserved permit released")
	assert.LessOrEqual(t, a.maxUse, maxSlots)
	assert.Equal(t, submittedPanics.Load(), panics.Load())
	st := p.Stats().Slots
	assert.Zero(t, st.InUse)
	assert.Zero(t, st.Reserved)
	assert.Equal(t, uint64(refused.Load()), st.Refusals)
	assert.EqualValues(t, a.reasons[slots.ReasonComplete], ran.Load())
	assert.EqualValues(t, a.reasons[slots.ReasonFailed], panics.Load())
	t.Logf("ran %d, refused %d, cancelled %d, panicked %d, max in use %d",
		ran.Load(), refused.Load(), cancelled.Load(), panics.Load(), a.maxUse)
}

// TestReleaseReasons: complete after a normal task, failed (with the
// panic) after a panicking one, never used for a task dropped at Shutdown
// and for one refused because the pool closed.
func TestReleaseReasons(t *testing.T) {
	a := newAudit(t, slots.NewFixed(2))
	p, err := scheduler.New(scheduler.WithWorkers(1), scheduler.WithSupplier(a),
		scheduler.WithPanicHandler(func(*scheduler.Panic) {}))
	require.NoError(t, err)
	ctx := context.Background()

	require.NoError(t, p.Run(ctx, func(*scheduler.Worker) error {
		return nil
	}))
	assert.Equal(t, 1, a.reasons[slots.ReasonComplete])

	assert.Panics(t, func() { _ = p.Run(ctx, func(*scheduler.Worker) error { panic("x") }) })
	assert.Equal(t, 1, a.reasons[slots.ReasonFailed])

	release, started := make(chan struct{}), make(chan struct{})
	require.NoError(t, p.Spawn(ctx, func(*scheduler.Worker) { close(started); <-release }))
	<-started
	require.NoError(t, p.Spawn(ctx, func(*scheduler.Worker) { t.Error("dropped task ran") }))
	assert.Equal(t, 2, p.Stats().Slots.InUse+p.Stats().Slots.Reserved)
	short, cancel := context.WithTimeout(ctx, time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, p.Shutdown(short), context.DeadlineExceeded)
	assert.Equal(t, 1, a.reasons[slots.ReasonNeverUsed], "the queued task's slot")
	close(release)
	p.Close()
	assert.Equal(t, 2, a.reasons[slots.ReasonComplete])
	assert.Empty(t, a.outstanding())
}

func TestTrySpawnRefusesWhenFull(t *testing.T) {
	p := newPool(t, scheduler.WithWorkers(1), scheduler.WithSupplier(slots.NewFixed(1)))
	release := make(chan struct{})
	require.NoError(t, p.TrySpawn(func(*scheduler.Worker) { <-release }))
	assert.ErrorIs(t, p.TrySpawn(func(*scheduler.Worker) {}), scheduler.ErrNoSlot)
	st := p.Stats().Slots
	assert.Equal(t, 1, st.Max)
	assert.Equal(t, 0, st.Available)
	assert.EqualValues(t, 1, st.Refusals)

	// A blocking Spawn waits for the slot, within its context.
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, p.Spawn(ctx, func(*scheduler.Worker) {}), context.DeadlineExceeded)
	close(release)
	require.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) {}))
}
