package slots

import (
	"math/bits"
	"runtime"
	"sync"

	"golang.org/x/sys/cpu"
)

// usedSet is a Tracker's list of records in phase Used, kept so that
// ReserveContext.UsedSlots can report them live. It is split into shards,
// each with its own lock, so that workers marking and releasing slots at
// once rarely meet on a lock; a permit's shard is fixed by its id.
type usedSet struct {
	shards []usedShard
	shift  uint // 64 - log2(len(shards)), for the multiplicative hash
}

type usedShard struct {
	_    cpu.CacheLinePad
	mu   sync.Mutex
	head *record // first of the shard's Used records, linked by nextUsed
}

func (s *usedSet) init() {
	n := 1 << bits.Len(uint(runtime.GOMAXPROCS(0)-1)) // next power of two
	n = min(max(n, 1), 64)
	s.shards = make([]usedShard, n)
	s.shift = uint(64 - bits.TrailingZeros(uint(n)))
}

// shard returns the shard of permit id. Ids of one record are consecutive,
// so they are hashed (Fibonacci hashing) rather than masked.
func (s *usedSet) shard(id uint64) *usedShard {
	if len(s.shards) == 1 {
		return &s.shards[0]
	}
	return &s.shards[(id*0x9e3779b97f4a7c15)>>s.shift]
}

// link adds r, which the caller just moved to Used under sh.mu.
func (sh *usedShard) link(r *record, task TaskInfo) {
	r.task = task
	r.prevUsed = nil
	r.nextUsed = sh.head
	if sh.head != nil {
		sh.head.prevUsed = r
	}
	sh.head = r
}

// unlink removes r and returns its task. The caller holds sh.mu.
func (sh *usedShard) unlink(r *record) TaskInfo {
	if r.prevUsed != nil {
		r.prevUsed.nextUsed = r.nextUsed
	} else {
		sh.head = r.nextUsed
	}
	if r.nextUsed != nil {
		r.nextUsed.prevUsed = r.prevUsed
	}
	task := r.task
	r.task, r.prevUsed, r.nextUsed = TaskInfo{}, nil, nil
	return task
}

// remove unlinks r, whose permit id the caller moved from Used to Released.
// MarkUsed linked r under the same lock in the same critical section as
// its move to Used, so r is on the list by the time remove gets the lock.
func (s *usedSet) remove(r *record, id uint64) TaskInfo {
	sh := s.shard(id)
	sh.mu.Lock()
	task := sh.unlink(r)
	sh.mu.Unlock()
	return task
}

// list appends every Used record's permit and task to dst.
func (s *usedSet) list(dst []UsedInfo) []UsedInfo {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for r := sh.head; r != nil; r = r.nextUsed {
			id := r.state.Load() >> phaseBits
			dst = append(dst, UsedInfo{Permit: Permit{rec: r, id: id}, Task: r.task})
		}
		sh.mu.Unlock()
	}
	return dst
}
