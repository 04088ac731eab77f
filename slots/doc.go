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
// Give a supplier to a pool (scheduler.WithSupplier) or a task worker
// (intake.Config.Supplier); they use it through a Tracker, as code of your
// own that admits tasks should:
//
//	t := slots.NewTracker(slots.NewFixed(8))
//	p, err := t.Reserve(ctx, "render")        // or t.TryReserve("render")
//	...                                       // the task waits its turn
//	t.MarkUsed(p, slots.TaskInfo{Kind: "render"}) // a worker starts it
//	...                                       // the task runs
//	t.Release(p, slots.TaskComplete())        // or TaskFailed(err), or NeverUsed()
//
// A reservation comes before the task is taken in (polled, queued), so
// that work is never accepted without a place to run it. Every permit is
// released exactly once: a second Release is ErrReleasedTwice, a permit
// of another Tracker ErrForeignPermit, and a Reserve whose ctx ends
// returns its error with nothing reserved. WithLeakHook finds permits
// dropped without a release.
//
// One supplier may serve several Trackers: a Fixed of ten shared by two
// pools runs at most ten tasks between them. Stats reports a Tracker's
// slots: issued, reserved, in use, available.
//
// docs/slots.md tells the protocol a supplier must keep, how permits are
// told apart without a table, how Fixed stays fair without a lock on its
// fast path, how ResourceBased's controller decides, and the
// memory-ordering argument.
package slots
