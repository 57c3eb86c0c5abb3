/** "up to date", "less than a minute", "about 5 min", "about 3 h 20 min", "about 2 days 4 h". */
export function humanizeEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return 'up to date';
  if (seconds < 60) return 'less than a minute';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) {
    const rest = minutes % 60;
    return rest ? `about ${hours} h ${rest} min` : `about ${hours} h`;
  }
  const days = Math.floor(hours / 24);
  const restHours = hours % 24;
  const dayWord = days === 1 ? 'day' : 'days';
  return restHours ? `about ${days} ${dayWord} ${restHours} h` : `about ${days} ${dayWord}`;
}

/** "3 min ago", "in 42 min": a time relative to `now`, for short-lived windows and health checks. */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const diff = Math.round((at - now) / 1000);
  const abs = Math.abs(diff);
  let amount: string;
  // A few seconds "in the future" is clock skew between the server and this browser, not a future event.
  if (abs < 45) return diff <= 5 ? 'just now' : 'in a few seconds';
  if (abs < 3600) amount = `${Math.round(abs / 60)} min`;
  else if (abs < 86_400) amount = `${Math.round(abs / 3600)} h`;
  else amount = `${Math.round(abs / 86_400)} d`;
  return diff < 0 ? `${amount} ago` : `in ${amount}`;
}
