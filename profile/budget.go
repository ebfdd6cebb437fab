package profile

// Budget is what an agent's client may spend in a day (since local
// midnight): tokens (in and out; cache reads and writes aside), or an
// estimate in US dollars by the workspace's price table. Zero is no bound.
type Budget struct {
	TokensPerDay int64   `yaml:"tokens_per_day" json:"tokens_per_day,omitempty"`
	USDPerDay    float64 `yaml:"usd_per_day" json:"usd_per_day,omitempty"`
}
