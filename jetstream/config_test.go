package weftjs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	weftjs "github.com/weftrt/weft/jetstream"
)

// Settings that cannot be right are refused at construction, with an
// error that names the field, the value and the rule, and wraps
// ErrConfig.
func TestConfigRefusesImpossibleSettings(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	for _, c := range []struct {
		name string
		cfg  weftjs.Config
		want []string
	}{
		{"AckWait a unit slip", weftjs.Config{AckWait: 30}, []string{"AckWait 30ns", "at least"}},
		{"negative AckWait", weftjs.Config{AckWait: -time.Second}, []string{"AckWait -1s"}},
		{"negative PollWait", weftjs.Config{PollWait: -time.Second}, []string{"PollWait -1s"}},
		{"tiny PollWait", weftjs.Config{PollWait: time.Microsecond}, []string{"PollWait 1µs"}},
		{"wildcard inside a token", weftjs.Config{Subjects: []string{"tasks>"}}, []string{`"tasks>"`, "whole token", `"tasks.>"`}},
		{"wildcard not last", weftjs.Config{Subjects: []string{"tasks.>.x"}}, []string{`"tasks.>.x"`, "last token"}},
		{"empty token", weftjs.Config{Subjects: []string{"tasks..x"}}, []string{"empty token"}},
		{"negative MaxDeliver", weftjs.Config{MaxDeliver: -1}, []string{"MaxDeliver -1"}},
		{"wildcard dead-letter subject", weftjs.Config{DeadLetterSubject: "dead.>"}, []string{"DeadLetterSubject", "wildcard"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			src, err := weftjs.NewSource(ctx, js, c.cfg)
			if src != nil {
				src.Close()
			}
			require.Error(t, err)
			require.True(t, errors.Is(err, weftjs.ErrConfig), "%v does not wrap ErrConfig", err)
			for _, w := range c.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
	_, err := weftjs.NewSource(context.Background(), nil, weftjs.Config{})
	require.ErrorIs(t, err, weftjs.ErrConfig)
	require.Contains(t, err.Error(), "nil JetStream")
}
