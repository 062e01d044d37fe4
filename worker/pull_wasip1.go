//go:build wasip1

//lint:file-ignore U1000 the //go:wasmexport functions are called by the host

package main

import (
	"encoding/binary"
	"unsafe"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/rental"
)

// build_inventory builds the feed in the alloc buffer (n bytes) into an inventory blob
// (buildPulled) and returns the address of [u32 status][u32 len][version or error][u32
// len][blob]: status 0 with the version and the blob, 1 with the error and no blob. The
// glue calls it in an instance made for one pull and dropped after it: the module never
// frees, and the serving instance must not grow by a feed's parse.
//
//go:wasmexport build_inventory
func buildInventory(n uint32) uint32 {
	var out []byte
	var blob []byte
	var v string
	var err error = errNotInBuffer
	if int(n) <= len(inbuf) {
		blob, v, err = buildPulled(rental.Bundled(), inbuf[:n])
	}
	if err != nil {
		out = abi.AppendField(binary.LittleEndian.AppendUint32(nil, 1), err.Error())
		out = binary.LittleEndian.AppendUint32(out, 0)
	} else {
		out = make([]byte, 0, 12+len(v)+len(blob))
		out = abi.AppendField(binary.LittleEndian.AppendUint32(out, 0), v)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(blob)))
		out = append(out, blob...)
	}
	return uint32(uintptr(unsafe.Pointer(&out[0])))
}

var errNotInBuffer = constErr("feed: not in the buffer")

type constErr string

func (e constErr) Error() string { return string(e) }

// feed_status takes the scheduled pull's status (n bytes in the alloc buffer: the text
// of api.Server.SetFeedStatus), which the index reports from the next request on.
//
//go:wasmexport feed_status
func feedStatus(n uint32) {
	ensureServer()
	if int(n) <= len(inbuf) {
		server.SetFeedStatus(inbuf[:n])
	}
}
