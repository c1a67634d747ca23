package corpushandler

import (
	"context"
	"net"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExclusiveCheck(t *testing.T) {
	// An address this process serves through Caddy (as a configuration
	// being replaced does) is not probed: the reload case.
	own, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ownAddress := own.Addr().String()
	own.Close()
	na, err := caddy.ParseNetworkAddress(ownAddress)
	require.NoError(t, err)
	ln, err := na.Listen(context.Background(), 0, net.ListenConfig{})
	require.NoError(t, err)
	defer ln.(net.Listener).Close()

	tests := []struct {
		name   string
		listen string
		served []string // the addresses another process serves
		probed []string
		err    string
	}{
		{name: "a free address", listen: "127.0.0.1:8080", probed: []string{"127.0.0.1:8080"}},
		{name: "a served address", listen: "127.0.0.1:8080", served: []string{"127.0.0.1:8080"}, probed: []string{"127.0.0.1:8080"},
			err: "127.0.0.1:8080 is already served by another process"},
		{name: "every interface", listen: ":443", served: []string{":443"}, probed: []string{":443"}, err: ":443 is already served"},
		{name: "a range, its last port served", listen: "tcp/127.0.0.1:8080-8082", served: []string{"127.0.0.1:8082"},
			probed: []string{"127.0.0.1:8080", "127.0.0.1:8081", "127.0.0.1:8082"}, err: "127.0.0.1:8082 is already served"},
		{name: "a socket handed over by systemd", listen: "fd/3", served: []string{"fd/3"}},
		{name: "a unix socket", listen: "unix//run/proveit/corpus.sock", served: []string{"/run/proveit/corpus.sock"}},
		{name: "a datagram address", listen: "udp/127.0.0.1:443", served: []string{"127.0.0.1:443"}},
		{name: "an address this process serves", listen: ownAddress, served: []string{ownAddress}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var probed []string
			e := &Exclusive{served: func(address string) bool {
				probed = append(probed, address)
				for _, s := range tt.served {
					if s == address {
						return true
					}
				}
				return false
			}}
			err := e.check(tt.listen)
			assert.Equal(t, tt.probed, probed)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

// TestDialable: the default probe tells a listening address from a free one.
func TestDialable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	address := ln.Addr().String()
	assert.True(t, dialable(address))
	ln.Close()
	assert.False(t, dialable(address))
}
