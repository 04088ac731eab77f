package scheduler

import "context"

// check panics with a message naming the mistake when a Pool method is
// called on a nil *Pool, on a Pool not made by New (a zero Pool{}), or
// with a nil context. Each would otherwise end in a nil-pointer panic deep
// inside the pool.
func (p *Pool) check(method string, ctx context.Context) {
	switch {
	case p == nil:
		panic("weft/scheduler: " + method + " on a nil *Pool: create one with scheduler.New, or use scheduler.Default()")
	case p.eng == nil:
		panic("weft/scheduler: " + method + " on a Pool that scheduler.New did not make (a zero Pool{} cannot run anything)")
	case ctx == nil:
		panic("weft/scheduler: " + method + " with a nil context: pass context.Background() or context.TODO()")
	}
}

// checkStoppable panics if method (Close or Shutdown) must not stop p: p
// is the default pool, which every package of the process may be using,
// or the caller is a task of p, and method would wait for every task of p
// to finish, its own caller's included.
func (p *Pool) checkStoppable(method string) {
	if p.isDefault {
		panic("weft/scheduler: " + method + " on the default pool: it is shared by the whole process " +
			"and lives as long as it; create your own pool with scheduler.New to control its lifetime")
	}
	if p.eng.InTask() {
		panic("weft/scheduler: " + method + " called from a task of the pool it stops (a worker's start or exit hook " +
			"counts as one): it would wait for that task to finish, forever; call it from another goroutine (go pool." + method + "(...))")
	}
}
