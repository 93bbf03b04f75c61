// `npm start`: builds the web client when needed and serves it beside the embedded relay
// (see apps/web/server/start.ts; PORT and ROOST_DATA override the port and the data directory).
await import('../apps/web/server/start.ts')
