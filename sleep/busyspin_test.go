package sleep_test

import (
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/latch"
	"github.com/weftrt/weft/sleep"
)

// spinRounds runs worker 0's fruitless rounds on s until it announces
// itself sleepy (Idle.Final), at most limit rounds, calling tick before
// each, and returns how many rounds that took (limit+1: never).
func spinRounds(s *sleep.Sleep, limit int, tick func()) int {
	var l latch.Core
	idle := s.StartLooking(0)
	for round := 1; round <= limit; round++ {
		tick()
		s.NoWorkFound(&idle, &l)
		if idle.Final() {
			return round
		}
	}
	return limit + 1
}

// TestBusySpinLastsWhileAnotherWorkerIsBusy: worker 1 is busy (it never
// started looking), so worker 0 searches on past its SearchRounds for
// BusySpin by its clock, and announces itself sleepy at the first round
// after that.
func TestBusySpinLastsWhileAnotherWorkerIsBusy(t *testing.T) {
	const rounds = 4
	s, err := sleep.New(2, sleep.Tunables{SearchRounds: rounds, BusySpin: 10 * time.Microsecond})
	require.NoError(t, err)
	var now time.Duration
	sleep.SetClock(s, func() time.Duration { return now })
	got := spinRounds(s, 1000, func() { now += time.Microsecond })
	// Rounds 1-4 are the SearchRounds; round 5 starts the spin at 5 µs,
	// which goes on while the clock reads less than 15 µs (rounds 6-14);
	// round 15 finds it over and announces.
	assert.Equal(t, 15, got)
}

// TestNoBusySpinInAnIdlePool: with every other worker asleep there is no
// fork to come, so the worker announces itself sleepy right after its
// SearchRounds, whatever BusySpin says.
func TestNoBusySpinInAnIdlePool(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const rounds = 4
		s, err := sleep.New(2, sleep.Tunables{SearchRounds: rounds, BusySpin: sleep.MaxBusySpin})
		require.NoError(t, err)
		sleep.SetClock(s, func() time.Duration { return 0 })
		var l latch.Owned
		l.Init(s, 1)
		var wg sync.WaitGroup
		wg.Go(func() { // worker 1: looks for work until l is set, asleep meanwhile
			idle := s.StartLooking(1)
			for !l.Probe() {
				s.NoWorkFound(&idle, l.Core())
			}
			s.WorkFound()
		})
		synctest.Wait()
		inactive, sleeping := s.Counts()
		require.Equal(t, 1, inactive)
		require.Equal(t, 1, sleeping)
		assert.Equal(t, rounds+1, spinRounds(s, 1000, func() {}))
		l.Set()
		wg.Wait()
	})
}

// TestBusySpinDefaultAndOff: BusySpin zero means DefaultBusySpin (25 µs),
// and a negative one no spin: the worker announces itself sleepy right
// after its SearchRounds even while another worker is busy. With no
// SearchRounds, the spin still runs for BusySpin.
func TestBusySpinDefaultAndOff(t *testing.T) {
	for _, tc := range []struct {
		tun  sleep.Tunables
		want int
	}{
		// Rounds 1-4 search, round 5 starts the spin at 5 µs, which lasts
		// while the clock reads less than 30 µs; round 30 announces.
		{sleep.Tunables{SearchRounds: 4}, 30},
		{sleep.Tunables{SearchRounds: 4, BusySpin: -1}, 5},
		{sleep.Tunables{SearchRounds: -1}, 26},
		{sleep.Tunables{SearchRounds: -1, BusySpin: -1}, 1},
		// Rounds 1-3 spin (it starts at 1 µs and lasts 3), round 4 announces.
		{sleep.Tunables{SearchRounds: -1, BusySpin: 3 * time.Microsecond}, 4},
	} {
		s, err := sleep.New(2, tc.tun)
		require.NoError(t, err)
		var now time.Duration
		sleep.SetClock(s, func() time.Duration { return now })
		assert.Equal(t, tc.want, spinRounds(s, 1000, func() { now += time.Microsecond }), "%+v", tc.tun)
	}
}

// TestBusySpinOnlyWhileTheHintHolds: with a hint (SpinWhile), the spin
// starts only if the hint holds when it would start, and the hint is
// asked once a spin: a worker whose hint says no fork is coming (in weft,
// no worker runs a splitting loop) announces itself sleepy right after
// its SearchRounds, busy worker or not.
func TestBusySpinOnlyWhileTheHintHolds(t *testing.T) {
	for _, tc := range []struct {
		hint bool
		want int
	}{
		{false, 5},
		{true, 15}, // as in TestBusySpinLastsWhileAnotherWorkerIsBusy
	} {
		s, err := sleep.New(2, sleep.Tunables{SearchRounds: 4, BusySpin: 10 * time.Microsecond})
		require.NoError(t, err)
		asked := 0
		s.SpinWhile(func() bool { asked++; return tc.hint })
		var now time.Duration
		sleep.SetClock(s, func() time.Duration { return now })
		assert.Equal(t, tc.want, spinRounds(s, 1000, func() { now += time.Microsecond }), "hint %v", tc.hint)
		// Asked as the search begins, and again as the spin would start
		// only if the first answer was no.
		assert.Equal(t, 2-btoi(tc.hint), asked, "asked at most twice a search")
	}
}

// TestBusySpinOnAHintThatHeldAsTheSearchBegan: a worker that runs out of
// work while a loop runs spins even if the loop has ended by the time its
// spin would start (its owner has gone on to the next loop, which forks a
// few microseconds later); a hint that never held starts no spin.
func TestBusySpinOnAHintThatHeldAsTheSearchBegan(t *testing.T) {
	for _, tc := range []struct {
		first bool // the hint as the search begins; false ever after
		want  int
	}{
		{false, 5},
		{true, 15}, // as in TestBusySpinLastsWhileAnotherWorkerIsBusy
	} {
		s, err := sleep.New(2, sleep.Tunables{SearchRounds: 4, BusySpin: 10 * time.Microsecond})
		require.NoError(t, err)
		var now time.Duration
		sleep.SetClock(s, func() time.Duration { return now })
		s.SpinWhile(func() bool { return tc.first && now == 0 }) // the search begins at 0
		assert.Equal(t, tc.want, spinRounds(s, 1000, func() { now += time.Microsecond }), "hint %v as the search began", tc.first)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestBusySpinEndsWhenTheClockStandsStill: a clock that does not move
// while the worker spins (as in a synctest bubble) does not keep it
// spinning for good: MaxSearchRounds rounds end the spin.
func TestBusySpinEndsWhenTheClockStandsStill(t *testing.T) {
	s, err := sleep.New(2, sleep.Tunables{SearchRounds: -1, BusySpin: time.Microsecond})
	require.NoError(t, err)
	sleep.SetClock(s, func() time.Duration { return 0 })
	got := spinRounds(s, 2*sleep.MaxSearchRounds, func() {})
	assert.Equal(t, sleep.MaxSearchRounds+1, got, "MaxSearchRounds rounds of spin, then the announcement")
}

// TestNewRejectsTooLongBusySpin: like SearchRounds, a spin longer than the
// bound is refused at construction, naming the value and the bound.
func TestNewRejectsTooLongBusySpin(t *testing.T) {
	_, err := sleep.New(1, sleep.Tunables{BusySpin: sleep.MaxBusySpin + 1})
	require.ErrorIs(t, err, sleep.ErrTunables)
	assert.Contains(t, err.Error(), (sleep.MaxBusySpin + 1).String())
	assert.Contains(t, err.Error(), sleep.MaxBusySpin.String())
	for _, d := range []time.Duration{-1, 0, 1, sleep.MaxBusySpin} {
		_, err := sleep.New(1, sleep.Tunables{BusySpin: d})
		require.NoError(t, err, "BusySpin="+strconv.Itoa(int(d)))
	}
}

// TestNoBusySpinWhileAWakerWaitsForAProcessor: a worker that woke another
// and handed it its processor (Handoff) waits for a processor itself; a
// busy spin would keep one from it, so none starts while one waits.
func TestNoBusySpinWhileAWakerWaitsForAProcessor(t *testing.T) {
	const rounds = 4
	s, err := sleep.New(2, sleep.Tunables{SearchRounds: rounds, BusySpin: sleep.MaxBusySpin})
	require.NoError(t, err)
	sleep.SetClock(s, func() time.Duration { return 0 })
	sleep.HandingOff(1)
	defer sleep.HandingOff(-1)
	assert.Equal(t, rounds+1, spinRounds(s, 1000, func() {}))
}
