export const EventDetail = ({ projectId,eventId }: { projectId: string; eventId: string }) => (
  <section>
    <h1>EventDetail</h1>
    <p className="muted">Not built yet ({[projectId,eventId].join(', ')}).</p>
  </section>
);
