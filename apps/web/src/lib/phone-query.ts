/**
 * The width below which the layout is the phone one (drawer and full-screen sheets). Its own
 * file, free of React, for the page's first script (`prepaint/boot.ts`).
 */
export const PHONE_QUERY = '(max-width: 640px)'
