package telegram

import (
	"context"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// The limits are checked from below only: a limiter must make the bot wait
// at least this long; how much longer a loaded machine takes is no concern.

func TestOneChatGetsAboutOneMessageASecondAfterABurst(t *testing.T) {
	client, fake := newFakeClient(t, Config{RateLimit: true})
	start := time.Now()
	for range chatBurst + 2 {
		if _, err := client.SendMessage(context.Background(), SendMessageParams{Chat: Chat{ID: 7}, Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	if elapsed := time.Since(start); elapsed < 2*privateEvery-10*time.Millisecond {
		t.Fatalf("%d messages to one chat took %v; the burst of %d and then one a second allow no less than 2 s", chatBurst+2, elapsed, chatBurst)
	}
	if n := len(fake.SentTo(7)); n != chatBurst+2 {
		t.Fatalf("sent %d", n)
	}
}

func TestAllChatsTogetherStayUnderThirtyASecond(t *testing.T) {
	client, _ := newFakeClient(t, Config{RateLimit: true})
	start := time.Now()
	for chat := range int64(globalBurst + 10) {
		if _, err := client.SendMessage(context.Background(), SendMessageParams{Chat: Chat{ID: 1000 + chat}, Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	if elapsed, least := time.Since(start), 10*time.Second/globalRate-10*time.Millisecond; elapsed < least {
		t.Fatalf("%d messages took %v; 30 a second allow no less than %v", globalBurst+10, elapsed, least)
	}
}

func TestGroupsGetTwentyAMinuteAndIdleChatsAreForgotten(t *testing.T) {
	l := newSendLimiter()
	if got := l.chat(-100123).Limit(); got != rate.Every(3*time.Second) {
		t.Errorf("group limit = %v a second, want 20 a minute", got)
	}
	if got := l.chat(123).Limit(); got != rate.Every(time.Second) {
		t.Errorf("private chat limit = %v a second, want 1", got)
	}
	for chat := range int64(3000) {
		l.chat(chat)
	}
	if n := len(l.chats); n >= 3000 {
		t.Errorf("%d chat limiters kept; idle ones should have been dropped", n)
	}
	var nilLimiter *sendLimiter // TELEGRAM_RATE_LIMIT=off
	if err := nilLimiter.wait(context.Background(), 1); err != nil {
		t.Errorf("an off limiter failed: %v", err)
	}
}

func TestRateLimitIsOffUnlessAsked(t *testing.T) {
	if c := NewClient(context.Background(), context.Background(), Config{Token: "1:x", APIURL: "http://127.0.0.1:1"}); c.limit != nil {
		t.Fatal("RateLimit false still limits")
	}
}
