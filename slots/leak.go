package slots

import "runtime"

// Leak describes a permit that was dropped without being released, as
// reported to the hook of WithLeakHook. By then the slot has been
// released to the supplier.
type Leak struct {
	// Permit is the leaked permit's id.
	Permit uint64
	// Used reports whether the slot had been marked used; Task is the
	// task it was marked with.
	Used bool
	Task TaskInfo
}

// leakTicket is what a permit's cleanup needs. It must not point at the
// stamp the cleanup is attached to, or the stamp would never be collected.
type leakTicket struct {
	t   *Tracker
	rec *record
	id  uint64
}

// stamp returns the owner to put in a permit t adopts. Without leak
// detection it is t's shared token. With it, it is a new object: every copy
// of the permit points at it and nothing else does, so it becomes
// unreachable exactly when the last copy does, and its cleanup then checks
// whether the permit was released.
func (t *Tracker) stamp(p Permit) *owner {
	if t.onLeak == nil {
		return t.token
	}
	o := &owner{t: t}
	runtime.AddCleanup(o, reclaimAside, leakTicket{t: t, rec: p.rec, id: p.id})
	return o
}

// reclaimAside runs on the runtime's cleanup goroutine, which runs the
// cleanups of the whole process one after another, and hands the reclaim
// to a goroutine of its own. The reclaim calls the supplier's ReleaseSlot
// and the hook: a Goexit there (t.FailNow in a test's supplier) would end
// the cleanup goroutine, drop the cleanups queued behind it and stop every
// later cleanup of the process, this Tracker's leak detection included;
// and its wait for a MarkUsed in progress (toReleased) would hold them up.
// A goroutine costs nothing while no permit leaks.
func reclaimAside(k leakTicket) { go reclaim(k) }

// reclaim runs after a permit's stamp was collected. A released permit is
// no longer live and is left alone; a live one was leaked, and reclaim
// releases it the way Release would, so the supplier gets its slot back.
func reclaim(k leakTicket) {
	phase, ok := k.rec.toReleased(k.id)
	if !ok {
		return
	}
	k.t.leaked.Add(1)
	task := k.t.giveBack(k.rec, k.id, phase, TaskFailed(ErrPermitLeaked))
	k.t.onLeak(Leak{Permit: k.id, Used: phase == phaseUsed, Task: task})
}
