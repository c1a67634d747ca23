package seasonstore

import (
	"context"
	"strings"
)

// IsPostgres tells a PostgreSQL URL from a SQLite file's path.
func IsPostgres(database string) bool {
	return strings.HasPrefix(database, "postgres://") || strings.HasPrefix(database, "postgresql://")
}

// Open opens the store a database names: a PostgreSQL URL (replicas share
// it) or a SQLite file's path. The service and proveit's operator
// commands open their store through it alike.
func Open(ctx context.Context, database string, opts Options) (Store, error) {
	if IsPostgres(database) {
		return OpenPostgres(ctx, database, opts)
	}
	return OpenSQLite(ctx, database, opts)
}
