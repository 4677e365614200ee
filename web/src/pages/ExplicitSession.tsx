export const ExplicitSession = ({ projectId,sessionId }: { projectId: string; sessionId: string }) => (
  <section>
    <h1>ExplicitSession</h1>
    <p className="muted">Not built yet ({[projectId,sessionId].join(', ')}).</p>
  </section>
);
