// Package slots decides how much work may run at once: admission by slots.
// A slot is the right to run one task. Before a task is taken in, a slot
// is reserved; when a worker starts the task the slot is marked used; when
// the task ends the slot is released, with the reason. A Supplier decides
// whether a slot is free; the package ships four (Unlimited, Fixed,
// ResourceBased, Pauseable) and any user may write another.
//
// # Which supplier
//
//   - Unlimited (the pools' default) if nothing needs bounding: it admits
//     every task at once, and the Tracker still counts them.
//   - Fixed if you know how many tasks may run at once. It is fair (blocked
//     reservers are served in the order they blocked), allocates nothing,
//     and costs about as much as golang.org/x/sync/semaphore.Weighted.
//   - ResourceBased if the right number depends on what the tasks cost and
//     you would rather state a CPU and memory target than a count.
//   - Pauseable around either (or your own) if you need to stop admitting
//     work for a while without refusing callers: they wait for Resume.
//   - Your own Supplier if admission depends on what runs (one kind of
//     task must run alone, a remote lock, a per-tenant share): see the
//     custom supplier example. Build it on a Fixed to stay allocation-free.
//
// Use every supplier through a Tracker (a pool does).
//
// # The protocol
//
// A Tracker over a supplier is used by the code that admits and runs tasks:
//
//	p, err := t.Reserve(ctx, kind)          // or t.TryReserve(kind)
//	...                                     // the task waits its turn
//	t.MarkUsed(p, slots.TaskInfo{Kind: kind}) // a worker starts it
//	...                                     // the task runs
//	t.Release(p, slots.TaskComplete())      // or TaskFailed(err), or NeverUsed()
//
// A reservation comes before the task is taken in (polled, queued), so
// that work is never accepted without a place to run it; between reserve
// and mark the slot is "reserved"; from mark to release it is "in use".
// A slot that is reserved but never used (the pool shut down, the task was
// dropped) is released with NeverUsed.
//
// The Tracker guarantees to its supplier:
//
//   - every permit the supplier grants is released to it exactly once, by
//     the Tracker it was granted to (a second Release is ErrReleasedTwice,
//     a Release through another Tracker ErrForeignPermit; neither reaches
//     the supplier);
//   - MarkSlotUsed comes at most once per permit, before its release, and
//     ReleaseInfo.Used says whether it came;
//   - a Reserve whose ctx is already done does not reach the supplier, and
//     one that fails leaves nothing reserved.
//
// A supplier, in turn, must keep its half: ReserveSlot returns a permit or
// an error, never both, and a reservation that ends with an error (the
// usual case: ctx ended while waiting) leaves no slot taken, even when a
// slot was handed to it at the very moment ctx ended: it must pass that
// slot on. MarkSlotUsed and ReleaseSlot must not block, nor release the
// permit they are told about (a Release of a permit waits until its
// MarkSlotUsed has returned, so that the supplier sees the two in order).
//
// With WithLeakHook a Tracker also finds permits dropped without release:
// each permit carries a stamp with a runtime.AddCleanup, and a stamp
// collected while its permit is live means the permit was lost. The slot
// is released (TaskFailed(ErrPermitLeaked)) and the hook told. This costs
// three small allocations per permit, so it is off by default.
//
// # Permits
//
// A Permit is a small value: a pointer to a record, the permit's id, and
// the Tracker's stamp. The package assigns ids, unique in the process;
// suppliers create permits with NewPermit (one allocation) or, like Fixed,
// issue them from records they keep, one per slot, which is how Fixed
// allocates nothing. A record's state word holds the id of its live permit
// and its phase (issued, reserved, used, released), changed only by CAS,
// so a copy of a released permit, or one whose record was issued again,
// is told apart from the live one without any table of permits.
//
// # What a supplier sees
//
// ReserveContext tells a supplier what the slot is for (the kind given to
// Reserve) and the Tracker's state: permits issued, slots reserved and in
// use, and the slots in use with their tasks. It is read live, not copied
// when the reservation began, so a supplier that waits can look again.
// UsedInfo gives the task when its slot is marked used. ReleaseInfo gives
// the reason and whether the slot was used, but not the task again: a
// supplier that needs it keeps it from MarkSlotUsed, by permit ID (this
// keeps ReleaseInfo small enough to be passed in registers).
//
// # Sharing
//
// Suppliers keep their state themselves and are safe for concurrent use,
// so one supplier may serve several Trackers (several pools): a Fixed of
// ten shared by two pools runs at most ten tasks between them. Figures in
// Stats and ReserveContext are per Tracker; Stats.Available is the
// supplier's maximum less this Tracker's slots, so for a shared supplier
// it overstates what is free.
//
// # Fixed
//
// Fixed keeps its free slots on a lock-free stack (a Treiber stack of
// record indexes with an ABA tag, in one word with a "reservers waiting"
// flag). Taking and returning a free slot is one CAS on that word. A
// reserver that finds the stack empty takes a mutex, sets the flag and
// queues; a release that sees the flag hands its slot straight to the
// first reserver in the queue, and no newcomer can take a slot while the
// flag is set, which is what makes the order fair. A reserver whose
// context ends takes itself out of the queue under the mutex; if it finds
// that a slot was handed to it in the meantime, it releases that slot as
// any holder would, to the next in line.
//
// # Pauseable
//
// While not paused, Pauseable costs one atomic load before and one after
// asking its inner supplier (a grant that overlaps a Pause is seen by the
// second load and handed back as NeverUsed). To keep that path cheap it
// asks the inner TryReserveSlot first, and only when that refuses does it
// block in the inner ReserveSlot, under a context of its own that a Pause
// with CancelOutstanding can end.
//
// # ResourceBased and its controller
//
// ResourceBased reads CPU and memory usage through a Sampler: by default
// the process's cgroup v2 (cpu.max and cpu.stat's usage_usec; memory.max
// and memory.stat's anon, not memory.current, which counts the page cache
// and would stop admission on a machine that merely reads files), or the
// host's /proc/stat and /proc/meminfo when there is no cgroup v2. A
// reading that fails, panics, or holds figures that are not usage (NaN,
// infinite, negative) is skipped and counted (ResourceState.Skipped): one
// bad reading must neither stop the supplier for good nor make the
// per-slot estimate NaN for good, so the budget holds on the last good
// readings. The Sampler is read without the supplier's lock held, by one
// reservation at a time, so a slow reading holds up that reservation
// only, never a release.
//
// With no budget to hold on (MinSlots 0 and a budget of 0, as before the
// first good reading or after a cut to 0), only a good reading can let a
// reservation through, and no release can. Once three readings in a row
// have been skipped, such a reservation fails with an error wrapping
// ErrBadSample and the last reading's fault, rather than waiting until
// its context ends with nothing but State().Err to say why; the
// reservations waiting with it fail too, and later ones at once, until a
// reading succeeds (TryReserveSlot refuses, as it does whenever no slot
// is free). A Sampler that fails now and then, with good readings between,
// fails no reservation, and a reservation over a budget of one or more
// waits for a release however the readings go.
//
// Every SampleInterval (when reservations ask) it reads usage, and once per
// LoadDelay it decides a budget of slots; a reservation is granted while
// fewer slots than the budget are out (MinSlots always, MaxSlots never
// more). The controller is proportional, on an estimate of the load one
// slot adds:
//
//   - Each decision measures that load, per resource, as the change of
//     usage since the last decision over the change of the average number
//     of slots out (a least-squares fit through the origin with decaying
//     weights). Differences cancel the load of the rest of the machine.
//   - It then grows the budget by half the slots that fit under the
//     target (70% once the last step confirmed the estimate within 20%),
//     at least one slot and at most doubling, and only if reservations
//     were turned away; or it cuts the slots that are over the target
//     (from the slots actually out); or it holds. Growth needs a whole
//     slot of room and a cut needs half a slot over, so the budget holds
//     still within that band: noise does not make it chatter.
//   - It decides only once per LoadDelay, the time a change of slots takes
//     to show in the readings, so it never acts twice on one error: the
//     overshoot of a proportional controller fed stale readings does not
//     happen. If a step has not shown after LoadDelay (less than half its
//     predicted effect, or still moving), the decision waits for it, up to
//     eight readings, and LoadDelay is lengthened to what the step took.
//   - Before the first estimate it probes one slot at a time, and waits for
//     the probe to show and stop moving.
//   - RampThrottle bounds growth in time: one slot per RampThrottle. A slot
//     freed under the budget is granted again at once, or short tasks
//     would be held to one per RampThrottle.
//
// In TestResourceBasedSettles a simulated workload, where each slot adds a
// load that shows a few samples after the task starts, settles within 50
// samples in every case and never overshoots by more than one slot's load
// plus the noise when LoadDelay is at least the real lag; when it is a
// quarter of a gradual lag, the overshoot stays under four slots.
//
// # Memory ordering
//
// A Release of a permit synchronizes before the grant of the freed slot to
// its next holder (through the CAS on Fixed's word, or its mutex and
// channel when the slot is handed to a waiter): whatever a task did before
// its slot was released happens before the next task's reservation
// returns. Resume synchronizes before the reservations it lets through.
package slots
