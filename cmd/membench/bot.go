package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// botSettings is how the bot process is configured: the same environment
// variables membot reads.
type botSettings struct {
	TelegramURL, OpenAIURL, DatabaseURL string
	HistoryLimit, Workers               int
	Extra                               []string // KEY=VALUE, applied last
}

const benchToken = "100000:membench-token"

func (s botSettings) env() []string {
	env := append(os.Environ(),
		childEnv+"=bot",
		"ENV_FILE=/dev/null", // a .env in the working directory must not change the measurement
		"TELEGRAM_BOT_TOKEN="+benchToken,
		"TELEGRAM_API_URL="+s.TelegramURL,
		"TELEGRAM_RATE_LIMIT=off", // Telegram's limits are not what is measured,
		"STREAMING=false",         // nor the pacing of a streamed answer's edits (-env STREAMING=true measures it)
		"DATABASE_URL="+s.DatabaseURL,
		"OPENAI_API_KEY=membench",
		"OPENAI_BASE_URL="+s.OpenAIURL,
		"OPENAI_MODEL=membench-echo",
		"HISTORY_LIMIT="+strconv.Itoa(s.HistoryLimit),
		"WORKERS="+strconv.Itoa(s.Workers),
		"LOG_LEVEL=warn",
		"WEB_ADDR=", // the pages are not what is measured
		// The memory work after turns (facts, summaries) runs in the
		// background, off the turn's path; cmd/recallbench measures it.
		"AUTO_MEMORY=off",
		"SUMMARIES=off",
		// Its many users are served without an owner's Allow each.
		"ACCESS=open",
	)
	return append(env, s.Extra...)
}

// botProcess is the bot running in a child process.
type botProcess struct {
	cmd   *exec.Cmd
	stats chan botStats
	done  chan struct{} // closed when the process has ended
	err   error         // how it ended, once done is closed
}

// startBot starts this program again as the bot (see runChild); its log
// goes to logs.
func startBot(s botSettings, logs io.Writer) (*botProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own executable: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = s.env()
	cmd.Stderr = logs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the bot: %w", err)
	}
	p := &botProcess{cmd: cmd, stats: make(chan botStats), done: make(chan struct{})}
	go func() {
		lines := bufio.NewScanner(stdout)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			var st botStats
			if json.Unmarshal(lines.Bytes(), &st) == nil {
				p.stats <- st
			}
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Stats asks the bot for its counters.
func (p *botProcess) Stats() (botStats, error) {
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		return botStats{}, fmt.Errorf("ask the bot for its stats: %w", err)
	}
	select {
	case st := <-p.stats:
		return st, nil
	case <-p.done:
		return botStats{}, fmt.Errorf("the bot exited: %v", p.err)
	case <-time.After(30 * time.Second):
		return botStats{}, errors.New("the bot did not report its stats within 30 s")
	}
}

// Stop shuts the bot down as SIGTERM does in production, and waits.
func (p *botProcess) Stop() error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		if p.err != nil {
			return fmt.Errorf("the bot exited with %v", p.err)
		}
		return nil
	case <-time.After(60 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
		return errors.New("the bot did not stop within 60 s; killed")
	}
}

// Done is closed when the bot process has ended; Err says how.
func (p *botProcess) Done() <-chan struct{} { return p.done }

// Err is how the process ended, once Done is closed.
func (p *botProcess) Err() error { return p.err }
