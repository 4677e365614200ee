export const Events = ({ projectId }: { projectId: string }) => (
  <section>
    <h1>Events</h1>
    <p className="muted">Not built yet ({[projectId].join(', ')}).</p>
  </section>
);
