package metrics

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

var (
	inboxUnfinishedDesc = prometheus.NewDesc("membot_inbox_backlog",
		"Updates in the inbox not yet handled.", nil, nil)
	inboxOldestDesc = prometheus.NewDesc("membot_inbox_oldest_age_seconds",
		"How long the oldest unhandled update has waited (0 when none).", nil, nil)
	inboxUpDesc = prometheus.NewDesc("membot_inbox_scrape_ok",
		"1 when the inbox could be measured at this scrape, 0 when the database did not answer.", nil, nil)
	purgeBacklogDesc = prometheus.NewDesc("membot_purge_backlog",
		"Conversations /new reset that the purger has not deleted yet.", nil, nil)
	purgeOldestDesc = prometheus.NewDesc("membot_purge_oldest_age_seconds",
		"How long the oldest of them has waited (0 when none): growing, the purge fails.", nil, nil)
)

// Backlog is the work left behind, as the database says at a scrape.
type Backlog struct {
	Unfinished int           // updates not yet handled
	OldestAge  time.Duration // the oldest of them
	ToPurge    int           // conversations waiting for the purger
	PurgeAge   time.Duration // the oldest of them
}

// inboxCollector measures the backlog when scraped, so the numbers are the
// database's, shared by every replica, and never stale.
type inboxCollector struct {
	backlog func(ctx context.Context) (Backlog, error)
}

func (c *inboxCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{inboxUnfinishedDesc, inboxOldestDesc, inboxUpDesc, purgeBacklogDesc, purgeOldestDesc} {
		ch <- d
	}
}

func (c *inboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	b, err := c.backlog(ctx)
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
	if err != nil {
		gauge(inboxUpDesc, 0)
		return
	}
	gauge(inboxUpDesc, 1)
	gauge(inboxUnfinishedDesc, float64(b.Unfinished))
	gauge(inboxOldestDesc, b.OldestAge.Seconds())
	gauge(purgeBacklogDesc, float64(b.ToPurge))
	gauge(purgeOldestDesc, b.PurgeAge.Seconds())
}

var (
	poolAcquiredDesc = prometheus.NewDesc("membot_db_pool_acquired_connections", "Connections in use.", nil, nil)
	poolIdleDesc     = prometheus.NewDesc("membot_db_pool_idle_connections", "Idle connections.", nil, nil)
	poolTotalDesc    = prometheus.NewDesc("membot_db_pool_total_connections", "Open connections.", nil, nil)
	poolMaxDesc      = prometheus.NewDesc("membot_db_pool_max_connections", "The pool's size limit.", nil, nil)
	poolAcquiresDesc = prometheus.NewDesc("membot_db_pool_acquires_total", "Connections taken from the pool.", nil, nil)
	poolWaitsDesc    = prometheus.NewDesc("membot_db_pool_empty_acquires_total",
		"Acquires that had to wait for a connection: a sign the pool is too small.", nil, nil)
	poolWaitTimeDesc = prometheus.NewDesc("membot_db_pool_acquire_wait_seconds_total",
		"Time spent waiting to acquire connections.", nil, nil)
)

type poolCollector struct {
	stat func() *pgxpool.Stat
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolAcquiredDesc, poolIdleDesc, poolTotalDesc, poolMaxDesc, poolAcquiresDesc, poolWaitsDesc, poolWaitTimeDesc} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stat()
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	gauge(poolAcquiredDesc, float64(s.AcquiredConns()))
	gauge(poolIdleDesc, float64(s.IdleConns()))
	gauge(poolTotalDesc, float64(s.TotalConns()))
	gauge(poolMaxDesc, float64(s.MaxConns()))
	counter(poolAcquiresDesc, float64(s.AcquireCount()))
	counter(poolWaitsDesc, float64(s.EmptyAcquireCount()))
	counter(poolWaitTimeDesc, s.AcquireDuration().Seconds())
}
