package seasonstore

import "embed"

// migrations are the schema's versions, one folder per backend, each file
// a goose migration (NNNNN_name.sql): applied in order on open, each once,
// as the schema_version table records.
//
//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrations embed.FS
