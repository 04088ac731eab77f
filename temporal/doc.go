// Package wefttemporal runs Temporal workers on weft's slot suppliers, and
// Temporal activities' computation on weft's pool.
//
// A Temporal worker reserves a slot before each poll for a task, marks it
// used when a task arrives and releases it when the task is done; a
// worker.SlotSupplier decides when a slot is free. This package turns any
// weft slots.Supplier into one, so a worker gets what weft's suppliers do
// and Temporal's do not:
//
//   - pause and resume: slots.Pauseable stops a worker from taking new
//     tasks without stopping it (a GPU or a service downstream is
//     saturated, a deploy drains), and Resume lets it go on;
//   - a Tracker between Temporal and the supplier: a permit released twice
//     or marked twice is an error (WithErrorHook) that never reaches the
//     supplier, a permit Temporal drops is found and given back
//     (WithLeakHook), and Stats shows the slots out;
//   - slots.ResourceBased: slots by CPU and memory targets, read from the
//     cgroup, with a controller that does not oscillate;
//   - your own supplier, which sees Temporal's task queue, worker identity
//     and build id, and issued slots (ReservationOf).
//
// # Which to use
//
//   - NewTuner for a worker's whole set of suppliers: give it a weft
//     supplier per slot type (Workflow, Activity, LocalActivity, Nexus,
//     SessionActivity) and put it in worker.Options.Tuner; the types you
//     leave out keep Temporal's defaults.
//   - NewSupplier for one slot type, to combine with Temporal's own
//     suppliers in worker.NewCompositeTuner.
//   - Compute in an activity that computes: it runs a function on a
//     worker of a weft pool with the activity's ctx, heartbeating while it
//     runs, so par, join and scope spread the work over the cores and a
//     cancellation still reaches it.
//
// # The call
//
//	activities := slots.NewPauseable(slots.NewFixed(8))
//	tuner, err := wefttemporal.NewTuner(wefttemporal.TunerOptions{Activity: activities})
//	if err != nil { ... }
//	w := worker.New(c, "queue", worker.Options{Tuner: tuner})
//	...
//	activities.Pause(slots.PauseOptions{}) // no new activity slot...
//	activities.Resume()                    // ...until here
//
// # What Pause guarantees
//
// After Pause returns, the weft supplier grants the worker no new slot (a
// slot its inner supplier grants while paused goes back to it) until
// Resume. Every poll needs a slot, so no poll starts on a slot reserved
// after the Pause, and no eager activity is accepted. Activities already
// running finish and release their slots as usual.
//
// Pause does not stop the polls that reserved their slot before it: each
// of those (at most one per activity poller, plus eager activities already
// accepted; Stats().Reserved counts them) may still bring in one task,
// which runs. Pause with every slot in use and nothing new starts at all.
// CancelOutstanding changes nothing here: a reservation it ends is asked
// again and waits for Resume, since Temporal's poller would only log the
// error and ask again. Pause is not a shutdown: tasks already in the
// worker are not handed back, and the server keeps the task queue's tasks
// until a worker takes them (their schedule-to-start timeouts run).
//
// # Pitfalls
//
//   - A Tuner or Supplier belongs to one worker (its Stats are that
//     worker's); share the weft supplier, not the Supplier, to bound
//     several workers or slot types together.
//   - Temporal tells a supplier whether a slot was used, not whether its
//     task failed: a weft supplier sees TaskComplete or NeverUsed, never
//     TaskFailed (except from leak detection).
//   - TryReserveSlot (eager activities, eager workflow start) has no ctx:
//     there a weft supplier sees only the slot type, as rc.Kind().
//   - With worker.Options.WorkerStopTimeout 0 (the default) Worker.Stop
//     returns before its pollers have handed back their slots; they come
//     back moments later. Give a stop timeout if Stats must read zero
//     right after Stop.
//   - slots.ResourceBased behind a worker: a slot is reserved a poll
//     before its activity starts, so set ResourceOptions.LoadDelay to at
//     least the time from reservation to the activity's load showing, or
//     the controller grows the budget on readings that do not yet show
//     the slots it granted (docs/temporal.md).
//
// docs/temporal.md tells when weft's suppliers pay off in a Temporal
// worker, how each Temporal call maps to weft's, and what the adapter
// costs per slot.
package wefttemporal
