/**
 * The page's first script: opens the last account's cache and starts its first reads, so they
 * run while the rest of the app is evaluated (see model/boot-store.ts).
 */
import { startBoot } from './model/boot-store'

startBoot()
