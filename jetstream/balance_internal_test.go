package weftjs

import (
	"fmt"
	"testing"
)

// Every member gets n/members partitions or one more, whatever the
// members, and the same list in any order gives the same assignment; a
// join or a leave moves few partitions (logged, and bounded loosely).
func TestAssignSpreadAndMoves(t *testing.T) {
	for _, n := range []int{1, 8, 16, 64} {
		moved, changes := 0, 0
		for m := 1; m <= 12; m++ {
			var members []string
			for i := range m {
				members = append(members, fmt.Sprintf("w%d-%d", i, n))
			}
			owners := assign(n, members)
			load := map[string]int{}
			for _, o := range owners {
				load[o]++
			}
			for _, mem := range members {
				if l := load[mem]; l < n/m || l > n/m+1 {
					t.Fatalf("%d partitions over %d members: %s has %d", n, m, mem, l)
				}
			}
			rev := append([]string(nil), members...)
			for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
				rev[i], rev[j] = rev[j], rev[i]
			}
			if fmt.Sprint(assign(n, rev)) != fmt.Sprint(owners) {
				t.Fatalf("the member list's order changed the assignment")
			}
			if m > 1 { // the join of the m-th member
				before := assign(n, members[:m-1])
				for p := range owners {
					if owners[p] != before[p] {
						moved++
					}
				}
				changes++
			}
		}
		t.Logf("%d partitions: joins from 1 to 12 members moved %d partitions in %d joins (ideal about n/m each)", n, moved, changes)
	}
}

func TestKeyTokenRoundTrip(t *testing.T) {
	for _, key := range []string{"a", "a.b", "*", ">", "with space", "é€", "\x00\n"} {
		tok := KeyToken(key)
		if err := checkSubject("x.k."+tok, false); err != nil {
			t.Fatalf("key %q: token %q is not a subject token: %v", key, tok, err)
		}
		if got := keyOfToken(tok); got != key {
			t.Fatalf("key %q came back as %q", key, got)
		}
		if got, want := partitionOfToken(tok, 8), PartitionOf(key, 8); got != want {
			t.Fatalf("key %q: token in partition %d, key in %d", key, got, want)
		}
	}
	if err := checkKey(""); err == nil {
		t.Fatal("empty key accepted")
	}
	if err := checkKey(string(make([]byte, MaxKeyLen+1))); err == nil {
		t.Fatal("long key accepted")
	}
}
