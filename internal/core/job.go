package core

// Job is the header of a unit of work that sits in a worker's deque or the
// pool's injector. Fork-join code (the join and scope packages) embeds a
// Job in a frame of its own and points it at the frame with Init; the deque
// holds *Job, and the worker that takes it calls the frame's RunJob.
//
// The zero value is unusable: call Init before the first push.
type Job struct {
	runner Runner // written once by Init, before the Job is first pushed
}

// Runner is what a Job runs. RunJob is called once per push, on the worker
// that took the job (the pusher itself, or a thief). It must not panic:
// fork-join frames catch a task's panic and hand it to the goroutine that
// waits for the task (see Catch).
type Runner interface {
	RunJob(w *Worker)
}

// Init points j at r. Frames call it once, when they are created; a frame
// that is reused keeps its Job.
func (j *Job) Init(r Runner) {
	if r == nil {
		panic("weft/scheduler: Job.Init with a nil Runner")
	}
	j.runner = r
}

func (j *Job) run(w *Worker) { j.runner.RunJob(w) }

// Runner returns what Init pointed j at.
func (j *Job) Runner() Runner { return j.runner }
