/** The SDK's abortSignal option, left out when there is no signal (exactOptionalPropertyTypes). */
export function withSignal(signal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return signal ? { abortSignal: signal } : {};
}
