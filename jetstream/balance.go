package weftjs

import (
	"cmp"
	"hash/fnv"
	"slices"
	"strconv"
)

// assign shares partitions 0..n-1 out among members, the same way in
// every process that has the same member list (in any order): each
// member gets n/len(members) partitions or one more, and a join or a
// leave moves few of them.
//
// It is rendezvous (highest random weight) hashing with bounded loads:
// each partition ranks the members by a hash of (member, partition) and
// goes to the first in its ranking that has room. Plain rendezvous
// hashing moves the fewest partitions (only those of the member that
// left, or those the new one ranks first for), but with 8 partitions
// over 3 members it gives 5-2-1 as often as 3-3-2; the bound keeps every
// load within one of even, at the cost of the few partitions that
// overflow to their second choice.
func assign(n int, members []string) []string {
	owner := make([]string, n)
	if len(members) == 0 {
		return owner
	}
	members = slices.Clone(members)
	slices.Sort(members)
	members = slices.Compact(members)
	floor, extra := n/len(members), n%len(members)
	load := make(map[string]int, len(members))
	ranked := make([]ranking, len(members))
	for p := range n {
		for i, m := range members {
			ranked[i] = ranking{m, weight(m, p)}
		}
		slices.SortFunc(ranked, func(a, b ranking) int {
			if c := cmp.Compare(b.w, a.w); c != 0 {
				return c
			}
			return cmp.Compare(a.member, b.member)
		})
		// Capacity is exactly n (floor each, one more for extra of
		// them), so some member always has room.
		for _, r := range ranked {
			l := load[r.member]
			if l < floor || (l == floor && extra > 0) {
				if l == floor {
					extra--
				}
				load[r.member] = l + 1
				owner[p] = r.member
				break
			}
		}
	}
	return owner
}

type ranking struct {
	member string
	w      uint64
}

// weight is member's score for partition p: FNV-1a of both, mixed
// (splitmix64's finalizer) so that near-equal inputs score apart.
func weight(member string, p int) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(member))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write(strconv.AppendInt(nil, int64(p), 10))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
