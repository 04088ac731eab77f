package weftjs

import (
	"context"
	"fmt"
	"testing"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// A listing of the member bucket cut short by its deadline (a slow
// server, a big bucket) is a failure, not a shorter list: the member
// loop would share the partitions out among the members it happened to
// read, taking partitions that are others' and letting go of its own.
func TestMembersCutShortIsAnError(t *testing.T) {
	js, _ := startJS(t)
	ctx := context.Background()
	kv, err := js.CreateKeyValue(ctx, natsjs.KeyValueConfig{Bucket: "M", History: 1, Storage: natsjs.MemoryStorage})
	require.NoError(t, err)
	const n = 250 // under the watcher's buffer (256): a listing cut short with more leaves nats.go's subscription goroutine blocked
	for i := range n {
		_, err := kv.PutString(ctx, fmt.Sprintf("m%04d", i), "x")
		require.NoError(t, err)
	}
	k := &keyed{s: &Source{}, id: "m0000", kv: kv}
	cut := 0
	for d := 200 * time.Microsecond; d < 300*time.Millisecond; d += d / 8 {
		for range 3 {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			members, err := k.members(ctx)
			cancel()
			if err == nil && len(members) < n+1 { // the own ID is listed twice
				cut++
				t.Errorf("deadline %v: %d members listed of %d, and no error", d, len(members)-1, n)
			}
		}
	}
	t.Logf("%d listings cut short without an error", cut)
}
