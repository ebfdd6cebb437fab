// Package link is what a master and its team across machines say to each
// other: the copies for agents of other hosts it sends, those from other
// hosts it delivers, the notices it passes to the overseers, and the
// commands' errands done on the hub. A master holds a Link (package hublink
// makes one) and never imports the hub: a program that runs a master of one
// machine links no NATS.
package link
