package clientusage

import "strings"

// Price is what a model's tokens cost, in US dollars per million.
type Price struct {
	In         float64 `yaml:"in" json:"in"`
	Out        float64 `yaml:"out" json:"out"`
	CacheRead  float64 `yaml:"cache_read" json:"cache_read"`
	CacheWrite float64 `yaml:"cache_write" json:"cache_write"`
}

// Prices are by model name prefix: the longest prefix of a model's name
// that the table holds prices it.
type Prices map[string]Price

// DefaultPrices are list prices per million tokens, for an estimate; a
// workspace's own table (prices.yaml) replaces a row or adds one.
var DefaultPrices = Prices{
	"claude-opus":   {In: 15, Out: 75, CacheRead: 1.5, CacheWrite: 18.75},
	"claude-sonnet": {In: 3, Out: 15, CacheRead: 0.3, CacheWrite: 3.75},
	"claude-haiku":  {In: 0.8, Out: 4, CacheRead: 0.08, CacheWrite: 1},
}

// Of is the price of a model; ok is false for a model the table does not
// know.
func (p Prices) Of(model string) (Price, bool) {
	best, found := "", false
	for prefix := range p {
		if strings.HasPrefix(model, prefix) && len(prefix) >= len(best) {
			best, found = prefix, true
		}
	}
	return p[best], found
}

// Cost is what the usage costs by the table, in US dollars, and the models
// it could not price.
func (p Prices) Cost(u Usage) (dollars float64, unpriced []string) {
	for model, t := range u {
		price, ok := p.Of(model)
		if !ok {
			unpriced = append(unpriced, model)
			continue
		}
		dollars += (float64(t.In)*price.In + float64(t.Out)*price.Out + float64(t.CacheRead)*price.CacheRead + float64(t.CacheWrite)*price.CacheWrite) / 1e6
	}
	return dollars, unpriced
}
