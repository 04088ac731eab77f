package par

// The On forms pass their body to rangeOn as a kernel value, a small
// struct or function type with a chunk method, not as a closure made
// around it: a closure would escape with the loop that may share it, and
// cost an allocation on every call, even for a loop that then runs
// inline. A kernel is copied into a closure only on the path that enters
// the pool.

// onKernel is the chunk of an On form: it gets no worker, so it can run
// on the calling goroutine as well as on a worker.
type onKernel[R any] interface {
	chunk(lo, hi int) (R, error)
	// infallible reports that chunk never returns an error.
	infallible() bool
}

// indexBody is ForOn's kernel.
type indexBody func(i int)

func (body indexBody) chunk(lo, hi int) (none, error) {
	for i := lo; i < hi; i++ {
		body(i)
	}
	return none{}, nil
}

// indexErrBody is ForErrOn's kernel: up to the first error.
type indexErrBody func(i int) error

func (body indexErrBody) chunk(lo, hi int) (none, error) {
	return none{}, indexErrFunc(body).chunk(nil, lo, hi)
}

// eachBody is ForEachOn's kernel.
type eachBody[T any] struct {
	xs   []T
	body func(i int, x *T)
}

func (k eachBody[T]) chunk(lo, hi int) (none, error) {
	for i := lo; i < hi; i++ {
		k.body(i, &k.xs[i])
	}
	return none{}, nil
}

// rangeBody is ForRangeOn's kernel.
type rangeBody func(lo, hi int)

func (body rangeBody) chunk(lo, hi int) (none, error) {
	body(lo, hi)
	return none{}, nil
}

// rangeErrBody is ForRangeErrOn's kernel.
type rangeErrBody func(lo, hi int) error

func (body rangeErrBody) chunk(lo, hi int) (none, error) { return none{}, body(lo, hi) }

// mapBody is MapOn's kernel: f(xs[i]) into out[i].
type mapBody[T, U any] struct {
	xs  []T
	out []U
	f   func(x T) U
}

func (k mapBody[T, U]) chunk(lo, hi int) (none, error) {
	for i := lo; i < hi; i++ {
		k.out[i] = k.f(k.xs[i])
	}
	return none{}, nil
}

// reduceChunk is ReduceRangeOn's kernel.
type reduceChunk[R any] func(lo, hi int) R

func (chunk reduceChunk[R]) chunk(lo, hi int) (R, error) { return chunk(lo, hi), nil }

// reduceErrChunk is ReduceRangeErrOn's kernel.
type reduceErrChunk[R any] func(lo, hi int) (R, error)

func (chunk reduceErrChunk[R]) chunk(lo, hi int) (R, error) { return chunk(lo, hi) }

// foldBody is MapReduceOn's kernel: identity combined with f(x) for every
// x of the chunk, in order.
type foldBody[T, R any] struct {
	xs       []T
	identity R
	f        func(x T) R
	combine  func(a, b R) R
}

func (k foldBody[T, R]) chunk(lo, hi int) (R, error) {
	return foldMap(k.identity, k.xs[lo:hi], k.f, k.combine), nil
}

func (indexBody) infallible() bool { return true }

func (indexErrBody) infallible() bool { return false }

func (eachBody[T]) infallible() bool { return true }

func (rangeBody) infallible() bool { return true }

func (rangeErrBody) infallible() bool { return false }

func (mapBody[T, U]) infallible() bool { return true }

func (reduceChunk[R]) infallible() bool { return true }

func (reduceErrChunk[R]) infallible() bool { return false }

func (foldBody[T, R]) infallible() bool { return true }
