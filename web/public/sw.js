// watchlog's service worker: shows the notifications watchlog pushes (monitor transitions and
// anomaly alerts, and test notifications: docs/notifications.md) and opens the dashboard when one is clicked.
self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { text: event.data ? event.data.text() : '' };
  }
  let title = 'watchlog';
  let body = data.text || '';
  let url = '/';
  if (data.type === 'monitor.down' || data.type === 'monitor.up') {
    const down = data.type === 'monitor.down';
    title = `${data.monitor?.name ?? 'A monitor'} is ${down ? 'DOWN' : 'UP'}`;
    body = `${data.monitor?.url ?? ''}${down && data.error ? `: ${data.error}` : ''}`;
    url = `/p/${data.project_id}/monitors${data.monitor?.id ? `?open=${data.monitor.id}` : ''}`;
  } else if (data.type === 'anomaly.detected') {
    title = `Anomaly: ${data.rule} on ${data.service_name}`;
    body = data.subject ? `subject ${data.subject}` : '';
    url = `/p/${data.project_id}/anomalies`;
  } else if (data.type === 'channel.test') {
    title = 'watchlog test notification';
    body = `This browser gets ${data.channel?.name ?? 'this channel'}'s notifications.`;
    url = `/p/${data.project_id}/settings?tab=channels`;
  }
  event.waitUntil(self.registration.showNotification(title, { body, tag: data.id, data: { url } }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url ?? '/', self.location.origin).href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((w) => w.url.startsWith(self.location.origin));
      if (open) {
        await open.focus();
        if ('navigate' in open) await open.navigate(url);
        return;
      }
      await self.clients.openWindow(url);
    })(),
  );
});
