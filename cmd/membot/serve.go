package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// server is an HTTP listener of the bot: the webhook or the metrics.
type server struct {
	name string
	srv  *http.Server
	done chan struct{}
}

// startServer listens on addr (so a busy port fails start-up at once) and
// serves h, with TLS when certFile and keyFile are set.
func startServer(log *slog.Logger, name, addr string, h http.Handler, certFile, keyFile string) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s listener: %w", name, err)
	}
	s := &server{name: name, done: make(chan struct{}),
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}}
	log.Info(name+" server listening", "addr", ln.Addr().String(), "tls", certFile != "")
	go func() {
		defer close(s.done)
		var err error
		if certFile != "" {
			err = s.srv.ServeTLS(ln, certFile, keyFile)
		} else {
			err = s.srv.Serve(ln)
		}
		if !errors.Is(err, http.ErrServerClosed) {
			log.Error(name+" server failed", "err", err)
		}
	}()
	return s, nil
}

// stop lets requests in progress finish (a few seconds at most) and closes.
func (s *server) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.srv.Shutdown(ctx)
	<-s.done
}
