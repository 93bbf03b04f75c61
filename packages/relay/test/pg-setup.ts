/**
 * Global setup of the relay suite on PostgreSQL: one throwaway server for the run, and a template
 * database with the migrations applied that each test relay's database is copied from.
 */
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { PostgresStore } from '../src/store/postgres'
import { startPgServer } from './pg-server'

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const server = await startPgServer()
  const admin = new pg.Client(server.url)
  await admin.connect()
  await admin.query('CREATE DATABASE roost_template')
  await admin.end()
  const store = await PostgresStore.open(server.urlOf('roost_template'), () => '')
  await store.close()
  project.provide('pgUrl', server.url)
  return () => server.stop()
}
