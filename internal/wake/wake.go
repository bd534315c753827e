// Package wake wakes background loops (the reminder scheduler, the purger)
// without blocking whoever wakes them.
package wake

import "sync"

// Signal wakes a background loop: Wake may be called any number of
// times, from anywhere, without blocking, and the loop wakes once for all
// the calls since it last looked. The zero value is ready to use.
type Signal struct {
	once sync.Once
	ch   chan struct{}
}

// C is what the loop waits on.
func (w *Signal) C() <-chan struct{} { return w.channel() }

// Wake wakes the loop, or leaves it to the wake-up already pending.
func (w *Signal) Wake() {
	select {
	case w.channel() <- struct{}{}:
	default:
	}
}

func (w *Signal) channel() chan struct{} {
	w.once.Do(func() { w.ch = make(chan struct{}, 1) })
	return w.ch
}
