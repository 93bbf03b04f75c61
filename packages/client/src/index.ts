export * from './signers'
export * from './store'
export * from './verify'
