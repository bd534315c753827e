package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"golang.org/x/net/netutil"

	"github.com/membot/membot/bot/inbox"
	"github.com/membot/membot/bot/telegram"
)

// serverLimits bound what one client can hold of a listener: the webhook
// and metrics ports face the network, so a flood of idle or slow
// connections must cost a bounded number of file descriptors and bytes.
type serverLimits struct {
	MaxConns          int           // connections open at once; the rest wait in the kernel's backlog
	ReadHeaderTimeout time.Duration // a request's headers must arrive within this
	ReadTimeout       time.Duration // the whole request, body included
	WriteTimeout      time.Duration // the whole response
	IdleTimeout       time.Duration // a keep-alive connection with no request is closed after this
	MaxHeaderBytes    int
}

// listenerLimits are the limits of both servers. An update is at most
// 1 MiB (inbox.maxUpdateSize), which 30 seconds read comfortably.
var listenerLimits = serverLimits{
	MaxConns:          512,
	ReadHeaderTimeout: 10 * time.Second,
	ReadTimeout:       30 * time.Second,
	WriteTimeout:      30 * time.Second,
	IdleTimeout:       60 * time.Second,
	MaxHeaderBytes:    16 << 10,
}

// server is an HTTP listener of the bot: the webhook or the metrics.
type server struct {
	name string
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
}

// startServer listens on addr (so a busy port fails start-up at once) and
// serves h, with TLS when certFile and keyFile are set, within listenerLimits.
func startServer(log *slog.Logger, name, addr string, h http.Handler, certFile, keyFile string) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s listener: %w", name, err)
	}
	return serveWithin(listenerLimits, log, name, ln, h, certFile, keyFile), nil
}

// serveWithin serves h on ln within lim until stopped.
func serveWithin(lim serverLimits, log *slog.Logger, name string, ln net.Listener, h http.Handler, certFile, keyFile string) *server {
	s := &server{name: name, ln: ln, done: make(chan struct{}),
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: lim.ReadHeaderTimeout,
			ReadTimeout:       lim.ReadTimeout,
			WriteTimeout:      lim.WriteTimeout,
			IdleTimeout:       lim.IdleTimeout,
			MaxHeaderBytes:    lim.MaxHeaderBytes,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		}}
	log.Info(name+" server listening", "addr", ln.Addr().String(), "tls", certFile != "", "max_conns", lim.MaxConns)
	ln = netutil.LimitListener(ln, lim.MaxConns)
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
	return s
}

// addr is where the server listens (the port chosen when addr ended in :0).
func (s *server) addr() string { return s.ln.Addr().String() }

// stop lets requests in progress finish (a few seconds at most) and closes.
func (s *server) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.srv.Shutdown(ctx)
	<-s.done
}

// startWebhook serves the webhook on WEBHOOK_LISTEN, at WEBHOOK_URL's path,
// and then registers WEBHOOK_URL with Telegram, so that the first update
// Telegram posts finds the server up. Every replica registers the same URL
// and secret, so starting one more never disturbs the others.
func startWebhook(ctx context.Context, cfg *Config, log *slog.Logger, client *telegram.Client, store inbox.Inbox,
	notify func([]int64), met inbox.Metrics) (*server, error) {
	secret := cfg.Intake.WebhookSecret
	if secret == "" {
		secret = inbox.DefaultWebhookSecret(cfg.Telegram.Token)
	}
	path := "/"
	if u, err := url.Parse(cfg.Intake.WebhookURL); err == nil && u.Path != "" {
		path = u.Path
	}
	mux := http.NewServeMux()
	mux.Handle(path, &inbox.Webhook{Inbox: store, Notify: notify, Secret: secret, Metrics: met, Log: log})
	srv, err := startServer(log, "webhook", cfg.Intake.WebhookListen, mux, cfg.Intake.WebhookTLSCert, cfg.Intake.WebhookTLSKey)
	if err != nil {
		return nil, err
	}
	if err := client.SetWebhook(ctx, cfg.Intake.WebhookURL, secret); err != nil {
		srv.stop()
		return nil, fmt.Errorf("register the webhook: %w", err)
	}
	log.Info("webhook registered with Telegram", "url", cfg.Intake.WebhookURL, "path", path)
	return srv, nil
}
