// Package joinline is the line a hub prints for each host to join it
// with, and reads it back for the programs and tests that start hosts
// from it:
//
//	on gpu, in its workspace: SWITCHBOARD_HUB_PASSWORD=... switchboard up --hub nats://hub:4222 --host gpu
//
// The password is in the environment of the command, never among its
// arguments, which every process of the machine can read; a host that
// joins by credentials of a server of its own has a --hub-creds flag
// instead.
package joinline
