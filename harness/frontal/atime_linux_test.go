package frontal

import (
	"io/fs"
	"syscall"
	"time"
)

// accessTime is the time info's file was last read.
func accessTime(info fs.FileInfo) (time.Time, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(st.Atim.Unix()), true
}
